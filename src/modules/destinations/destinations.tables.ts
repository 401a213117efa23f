import type { ColumnType, Generated } from 'kysely';
import type { Timestamp, Json } from '../../platform/db/schema.js';

/**
 * The destinations module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    outputDestinations: OutputDestinationsTable;
  }
}

export interface OutputDestinationsTable {
  id: string;
  organizationId: string;
  name: string;
  type: string;
  config: Json<Record<string, unknown>>;
  tokenCiphertext: string | null;
  eventSubscriptions: ColumnType<string[], string[] | undefined, string[]>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** 'code' when written by config apply (migration 0085). */
  managedBy: Generated<'code' | null>;
  managedSource: Generated<string | null>;
  /** Webhook signing secrets (migration 0134): the current one, and the one before a rotation until its overlap ends. */
  signingSecretCiphertext: Generated<string | null>;
  previousSigningSecretCiphertext: Generated<string | null>;
  previousSigningSecretExpiresAt: Generated<Date | null>;
}
