import type { Timestamp } from '../../platform/db/schema.js';

/**
 * The organizations module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    organizations: OrganizationsTable;
  }
}

export interface OrganizationsTable {
  id: string;
  name: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}
