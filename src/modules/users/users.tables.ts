import type { Generated } from 'kysely';
import type { Timestamp, NullableTimestamp } from '../../platform/db/schema.js';

/**
 * The users module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    users: UsersTable;
  }
}

export interface UsersTable {
  id: string;
  organizationId: string;
  email: string;
  name: Generated<string>;
  roleId: string;
  deactivatedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}
