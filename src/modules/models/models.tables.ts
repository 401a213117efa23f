import type { Generated } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

/**
 * The models module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    modelProviders: ModelProvidersTable;
    modelAliases: ModelAliasesTable;
  }
}

export interface ModelProvidersTable {
  id: string;
  organizationId: string;
  name: string;
  type: 'openai' | 'anthropic' | 'openai-compatible';
  baseUrl: string | null;
  apiKeyCiphertext: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** 'code' when written by config apply (migration 0085). */
  managedBy: Generated<'code' | null>;
  managedSource: Generated<string | null>;
}

export interface ModelAliasesTable {
  organizationId: string;
  alias: string;
  providerId: string;
  modelId: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** 'code' when written by config apply (migration 0085). */
  managedBy: Generated<'code' | null>;
  managedSource: Generated<string | null>;
}
