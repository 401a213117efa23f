import type { Generated } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

/**
 * The tools module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    mcpServers: McpServersTable;
  }
}

export interface McpServersTable {
  id: string;
  organizationId: string;
  name: string;
  url: string;
  tokenCiphertext: string | null;
  enabled: Generated<boolean>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** 'code' when written by config apply (migration 0085). */
  managedBy: Generated<'code' | null>;
  managedSource: Generated<string | null>;
}
