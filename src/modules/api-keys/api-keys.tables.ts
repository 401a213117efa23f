import type { Timestamp, NullableTimestamp } from '../../platform/db/schema.js';

/**
 * The api-keys module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    apiKeys: ApiKeysTable;
  }
}

export interface ApiKeysTable {
  id: string;
  organizationId: string;
  userId: string;
  name: string;
  prefix: string;
  keyHash: Buffer;
  createdAt: Timestamp;
  lastUsedAt: NullableTimestamp;
  expiresAt: NullableTimestamp;
  revokedAt: NullableTimestamp;
}
