import type { Database } from '../../platform/db/database.js';
import type { ModuleReaders } from '../../platform/wiring.js';
import { NotFoundError } from '../../platform/http/errors.js';
import type { ExtraObjectRow } from './taxii-collections.js';
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

/**
 * The TAXII 2.1 read side: collections per organization (all indicators, one per source), then
 * the collections higher modules answer (`taxiiExtraCollections`: block lists).
 */
export function createTaxiiService(deps: { db: Database; readers?: Partial<ModuleReaders> }) {
  const { db } = deps;
  const extra = deps.readers ?? {};

  /**
   * Intel's collections, then the extra ones the reader's permissions (`granted`) open, marked as
   * such; without `granted` (the MISP feed, which serves intel only) none of them.
   */
  async function collections(orgId: string, granted?: ReadonlySet<string>): Promise<Array<Collection & { extra?: true }>> {
    const [sources, all] = await Promise.all([
      db.selectFrom('intelSources').select(['id', 'displayName']).where('organizationId', '=', orgId).orderBy('displayName').orderBy('id').execute(),
      granted ? (extra.taxiiExtraCollections?.(db, orgId) ?? []) : [],
    ]);
    const more = all.filter((c) => granted?.has(c.permission));
    return [
      collection(allCollectionId(orgId), 'All indicators', 'Every indicator of every intel source of this organization, as STIX 2.1 indicators'),
      ...sources.map((s) => collection(s.id, `Indicators from ${s.displayName}`, `The indicators of the intel items of the source "${s.displayName}"`)),
      ...more.map((c) => ({ ...collection(c.id, c.title, c.description), extra: true as const })),
    ];
  }

  /** 404 for unknown ids and for another organization's sources alike. */
  async function collectionOf(orgId: string, id: string, granted?: ReadonlySet<string>): Promise<Collection & { extra?: true }> {
    if (UUID.test(id)) {
      const found = (await collections(orgId, granted)).find((c) => c.id === id.toLowerCase());
      if (found) return found;
    }
    throw new NotFoundError('Collection');
  }

  async function page(orgId: string, collectionId: string, q: ObjectsQuery, filters: MatchFilters, granted: ReadonlySet<string> | undefined): Promise<{ rows: Array<ObjectRow | ExtraObjectRow>; more: boolean; next: string | undefined }> {
    const coll = await collectionOf(orgId, collectionId, granted);
    const limit = Math.min(q.limit ?? DEFAULT_PAGE, MAX_PAGE);
    const after = q.next ? decodeNext(q.next) : undefined;
    if (!filters.possible) return { rows: [], more: false, next: undefined };
    if (coll.extra) {
      const rows = await extra.taxiiExtraObjects!(db, orgId, coll.id, { addedAfter: q.added_after ? new Date(q.added_after) : undefined, after, stixUuids: filters.stixIds, versions: filters.versions, limit: limit + 1 });
      const more = rows.length > limit;
      const shown = rows.slice(0, limit);
      return { rows: shown, more, next: more ? encodeNext(shown.at(-1)!) : undefined };
    }
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

  function objectsOf(orgId: string, rows: Array<ObjectRow | ExtraObjectRow>) {
    return rows.flatMap((r) => {
      const o = indicatorObject('stixUuid' in r ? { ...factsOf(orgId, r), uuid: r.stixUuid, description: r.description } : factsOf(orgId, r));
      return o ? [o] : [];
    });
  }

  return {
    collections: async (orgId: string, granted?: ReadonlySet<string>) => ({ collections: (await collections(orgId, granted)).map(({ extra: _extra, ...c }) => c) }),
    /** One collection; `granted` (the reader's permissions) opens the extra ones, without it only intel's exist. */
    collection: async (orgId: string, id: string, granted?: ReadonlySet<string>): Promise<Collection> => {
      const { extra: _extra, ...c } = await collectionOf(orgId, id, granted);
      return c;
    },

    async objects(orgId: string, collectionId: string, q: ObjectsQuery, granted?: ReadonlySet<string>): Promise<Page<Record<string, unknown>>> {
      const { rows, more, next } = await page(orgId, collectionId, q, matchFilters(q), granted);
      return { body: { more, ...(next ? { next } : {}), objects: objectsOf(orgId, rows) }, headers: dateHeaders(rows) };
    },

    async manifest(orgId: string, collectionId: string, q: ObjectsQuery, granted?: ReadonlySet<string>): Promise<Page<Record<string, unknown>>> {
      const { rows, more, next } = await page(orgId, collectionId, q, matchFilters(q), granted);
      const objects = objectsOf(orgId, rows).map((o, i) => ({ id: o.id, date_added: stixTime(rows[i]!.dateAdded), version: o.modified, media_type: STIX_MEDIA_TYPE }));
      return { body: { more, ...(next ? { next } : {}), objects }, headers: dateHeaders(rows) };
    },

    /** One object (its only version, or the one `match[version]` names); 404 when the collection does not hold it. */
    async object(orgId: string, collectionId: string, objectId: string, q: ObjectsQuery, granted?: ReadonlySet<string>): Promise<Page<Record<string, unknown>>> {
      const filters = matchFilters({ ...q, 'match[id]': objectId });
      const { rows } = await page(orgId, collectionId, { ...q, next: undefined, limit: 1 }, filters, granted);
      if (rows.length === 0) throw new NotFoundError('Object');
      return { body: { more: false, objects: objectsOf(orgId, rows) }, headers: dateHeaders(rows) };
    },

    async versions(orgId: string, collectionId: string, objectId: string, q: ObjectsQuery, granted?: ReadonlySet<string>): Promise<Page<Record<string, unknown>>> {
      const filters = matchFilters({ ...q, 'match[id]': objectId, 'match[version]': undefined });
      const { rows } = await page(orgId, collectionId, { ...q, next: undefined, limit: 1 }, filters, granted);
      if (rows.length === 0) throw new NotFoundError('Object');
      return { body: { more: false, versions: rows.map((r) => stixTime(r.modified)) }, headers: dateHeaders(rows) };
    },
  };
}

export type TaxiiService = ReturnType<typeof createTaxiiService>;
