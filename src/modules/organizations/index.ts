import { defineModule } from '../../platform/module.js';
// The front door: organizations are created by the operator (CLI) and at first start, never over the API.
export { bootstrapIfEmpty, createOrganization, type CreatedOrganization } from './organizations.service.js';
export { organizationName, soleOrganizationId } from './organizations.service.js';

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['organizations'] as const;

/** No routes: organizations are made by the CLI and the first start (src/seed.ts, src/cli). */
export const organizationsModule = defineModule({ name: 'organizations', owns: ownedTables });
