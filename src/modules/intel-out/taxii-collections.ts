import type { Database } from '../../platform/db/database.js';
import type { Permission } from '../../platform/auth/permissions.js';
import type { ObjectRow, Position } from './objects.store.js';

/**
 * Collections the TAXII server serves beside intel's (a block list of the blocklists module): a
 * question intel out asks and a higher module answers (ModuleReaders, platform/wiring.ts), so the
 * TAXII rules (negotiation, paging, filters, STIX objects) stay here and intel out imports no
 * module above it. Without an answer the server serves intel's collections only.
 */
export interface ExtraCollection {
  id: string;
  title: string;
  description: string;
  /** What the reader needs beside the TAXII server's `intel.read`; without it the collection is not there (404). */
  permission: Permission;
}

/** One indicator of an extra collection: a materialized row's facts, its own STIX id and a description. */
export interface ExtraObjectRow extends ObjectRow {
  /** The UUID part of its STIX id (a v5 UUID: `uuidv5` of intel out). */
  stixUuid: string;
  description: string;
}

export interface ExtraObjectsQuery {
  /** Inclusive, on date_added. */
  addedAfter?: Date | undefined;
  /** Strictly after this position (the `next` token). */
  after?: Position | undefined;
  stixUuids?: string[] | undefined;
  versions?: Date[] | undefined;
  limit: number;
}

declare module '../../platform/wiring.js' {
  interface ModuleReaders {
    /** The organization's extra TAXII collections, in the order listed after intel's. */
    taxiiExtraCollections: (db: Database, orgId: string) => Promise<ExtraCollection[]>;
    /** A page of one extra collection's indicators in (date_added, seq) order; rows with `seq` as their position. */
    taxiiExtraObjects: (db: Database, orgId: string, collectionId: string, q: ExtraObjectsQuery) => Promise<ExtraObjectRow[]>;
  }
}
