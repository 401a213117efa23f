// The front door: organizations are created by the operator (CLI) and at first start, never over the API.
export { bootstrapIfEmpty, createOrganization, type CreatedOrganization } from './organizations.service.js';
export { organizationName } from './organizations.service.js';

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['organizations'] as const;
