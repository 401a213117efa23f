import type { Generated } from 'kysely';
import type { Timestamp, Json, JsonDefault } from '../../platform/db/schema.js';

/**
 * The coverage module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    coverageLayers: CoverageLayersTable;
  }
}

export interface CoverageLayersTable {
  id: string;
  organizationId: string;
  name: string;
  description: Generated<string>;
  techniques: JsonDefault<unknown[]>;
  layer: Json<unknown>;
  createdBy: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}
