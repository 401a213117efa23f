import type { Generated } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

/**
 * The roles module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    roles: RolesTable;
  }
}

export interface RolesTable {
  id: string;
  organizationId: string;
  name: string;
  description: Generated<string>;
  permissions: string[];
  isSystem: Generated<boolean>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}
