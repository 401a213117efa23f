// The front door: organizations are created by the operator (CLI) and at first start, never over the API.
export { bootstrapIfEmpty, createOrganization, type CreatedOrganization } from './organizations.service.js';
