import type { Database } from '../../platform/db/database.js';
import { NotFoundError } from '../../platform/http/errors.js';
import { factsOf, readPage, refreshObjects, type ObjectRow } from './objects.store.js';
import { allCollectionId, indicatorObject, stixTime } from './stix.fns.js';
import { decodeNext, encodeNext, matchFilters, STIX_MEDIA_TYPE, type MatchFilters } from './taxii.fns.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const DEFAULT_PAGE = 1_000;
export const MAX_PAGE = 10_000;

export interface Collection {
  id: string;
  title: string;
  description: string;
  can_read: boolean;
  can_write: boolean;
  media_types: string[];
}

export interface ObjectsQuery {
  added_after?: string | undefined;
  limit?: number | undefined;
  next?: string | undefined;
  'match[type]'?: string | undefined;
  'match[id]'?: string | undefined;
  'match[version]'?: string | undefined;
  'match[spec_version]'?: string | undefined;
}

/** A page and the headers TAXII puts beside it. */
export interface Page<T> {
  body: T;
  headers: Record<string, string>;
}

function collection(id: string, title: string, description: string): Collection {
  return { id, title, description, can_read: true, can_write: false, media_types: [STIX_MEDIA_TYPE] };
}

function dateHeaders(rows: ObjectRow[]): Record<string, string> {
  if (rows.length === 0) return {};
  return { 'x-taxii-date-added-first': stixTime(rows[0]!.dateAdded), 'x-taxii-date-added-last': stixTime(rows.at(-1)!.dateAdded) };
}

/** The TAXII 2.1 read side: collections per organization (all indicators, one per source). */
export function createTaxiiService(deps: { db: Database }) {
  const { db } = deps;

  async function collections(orgId: string): Promise<Collection[]> {
    const sources = await db.selectFrom('intelSources').select(['id', 'displayName']).where('organizationId', '=', orgId).orderBy('displayName').orderBy('id').execute();
    return [
      collection(allCollectionId(orgId), 'All indicators', 'Every indicator of every intel source of this organization, as STIX 2.1 indicators'),
      ...sources.map((s) => collection(s.id, `Indicators from ${s.displayName}`, `The indicators of the intel items of the source "${s.displayName}"`)),
    ];
  }

  /** 404 for unknown ids and for another organization's sources alike. */
  async function collectionOf(orgId: string, id: string): Promise<Collection> {
    if (UUID.test(id)) {
      const found = (await collections(orgId)).find((c) => c.id === id.toLowerCase());
      if (found) return found;
    }
    throw new NotFoundError('Collection');
  }

  async function page(orgId: string, collectionId: string, q: ObjectsQuery, filters: MatchFilters) {
    const coll = await collectionOf(orgId, collectionId);
    const limit = Math.min(q.limit ?? DEFAULT_PAGE, MAX_PAGE);
    const after = q.next ? decodeNext(q.next) : undefined;
    if (!filters.possible) return { rows: [], more: false, next: undefined };
    await refreshObjects(db, orgId);
    const rows = await readPage(db, orgId, {
      collectionId: coll.id,
      addedAfter: q.added_after ? new Date(q.added_after) : undefined,
      after,
      stixIds: filters.stixIds,
      versions: filters.versions,
      limit,
    });
    const more = rows.length > limit;
    const shown = rows.slice(0, limit);
    return { rows: shown, more, next: more ? encodeNext(shown.at(-1)!) : undefined };
  }

  function objectsOf(orgId: string, rows: ObjectRow[]) {
    return rows.flatMap((r) => {
      const o = indicatorObject(factsOf(orgId, r));
      return o ? [o] : [];
    });
  }

  return {
    collections: async (orgId: string) => ({ collections: await collections(orgId) }),
    collection: collectionOf,

    async objects(orgId: string, collectionId: string, q: ObjectsQuery): Promise<Page<Record<string, unknown>>> {
      const { rows, more, next } = await page(orgId, collectionId, q, matchFilters(q));
      return { body: { more, ...(next ? { next } : {}), objects: objectsOf(orgId, rows) }, headers: dateHeaders(rows) };
    },

    async manifest(orgId: string, collectionId: string, q: ObjectsQuery): Promise<Page<Record<string, unknown>>> {
      const { rows, more, next } = await page(orgId, collectionId, q, matchFilters(q));
      const objects = objectsOf(orgId, rows).map((o, i) => ({ id: o.id, date_added: stixTime(rows[i]!.dateAdded), version: o.modified, media_type: STIX_MEDIA_TYPE }));
      return { body: { more, ...(next ? { next } : {}), objects }, headers: dateHeaders(rows) };
    },

    /** One object (its only version, or the one `match[version]` names); 404 when the collection does not hold it. */
    async object(orgId: string, collectionId: string, objectId: string, q: ObjectsQuery): Promise<Page<Record<string, unknown>>> {
      const filters = matchFilters({ ...q, 'match[id]': objectId });
      const { rows } = await page(orgId, collectionId, { ...q, next: undefined, limit: 1 }, filters);
      if (rows.length === 0) throw new NotFoundError('Object');
      return { body: { more: false, objects: objectsOf(orgId, rows) }, headers: dateHeaders(rows) };
    },

    async versions(orgId: string, collectionId: string, objectId: string, q: ObjectsQuery): Promise<Page<Record<string, unknown>>> {
      const filters = matchFilters({ ...q, 'match[id]': objectId, 'match[version]': undefined });
      const { rows } = await page(orgId, collectionId, { ...q, next: undefined, limit: 1 }, filters);
      if (rows.length === 0) throw new NotFoundError('Object');
      return { body: { more: false, versions: rows.map((r) => stixTime(r.modified)) }, headers: dateHeaders(rows) };
    },
  };
}

export type TaxiiService = ReturnType<typeof createTaxiiService>;
