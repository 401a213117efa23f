import type { Generated } from 'kysely';
import type { Timestamp, NullableTimestamp } from '../../platform/db/schema.js';

/**
 * The blocklists module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    blocklists: BlocklistsTable;
    blocklistEntries: BlocklistEntriesTable;
    blocklistAllowlist: BlocklistAllowlistTable;
  }
}

/** Migration 0139: block lists (issue 43). */
export interface BlocklistsTable {
  id: string;
  organizationId: string;
  name: string;
  description: Generated<string>;
  indicatorTypes: string[];
  defaultTtlSeconds: number | null;
  createdBy: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface BlocklistEntriesTable {
  id: string;
  organizationId: string;
  blocklistId: string;
  seq: Generated<string>;
  stixUuid: string;
  type: string;
  value: string;
  reason: Generated<string>;
  expiresAt: NullableTimestamp;
  addedByType: 'user' | 'run';
  addedByUserId: string | null;
  addedByRunId: string | null;
  addedByAgentId: string | null;
  alertId: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface BlocklistAllowlistTable {
  id: string;
  organizationId: string;
  kind: 'domain' | 'cidr';
  value: string;
  note: Generated<string>;
  createdBy: string | null;
  createdAt: Timestamp;
}
