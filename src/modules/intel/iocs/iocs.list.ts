import { sql, type RawBuilder } from 'kysely';
import type { Database } from '../../../platform/db/database.js';
import type { RequestContext } from '../../../platform/context.js';
import { refang } from '../extract/extract.fns.js';
import { IOC_STATUSES, type IocListQueryT } from './iocs.schemas.js';
import { containsPattern } from '../../../platform/db/like.js';
import { createGenerationCache } from './counts-cache.js';
import { createSearchSampler } from './search-sample.repo.js';
import { ROW_COLUMNS, toRow, type DbRow, type IocStatus } from './ioc-row.fns.js';

/**
 * GET /iocs, the indicator list (IocsService.list): one command, with the state it keeps per
 * process (planner statistics, the summaries and narrow searches' match lists, each valid while
 * the organization's indicator generation is unchanged). How it plans is said at {@link listIocs}.
 */

/** The list's query as the service takes it: `type` is any list of types (the tools pass the extractor's kinds). */
export type IocListInput = Omit<IocListQueryT, 'type'> & { type?: readonly string[] | undefined };

/** `type = $1` for one type (the planner prunes intel_indicator_search to its partition), `= ANY` for several. */
function typeCondition(types: readonly string[] | undefined) {
  if (!types?.length) return sql``;
  return types.length === 1 ? sql` AND type = ${types[0]}` : sql` AND type = ANY(${[...types]}::text[])`;
}

/** The 4 statuses (a CHECK constraint on intel_indicators.status), as an SQL array literal. */
const STATUS_ARRAY = sql.raw(`ARRAY[${IOC_STATUSES.map((s) => `'${s}'`).join(', ')}]::text[]`);

/**
 * availableTypes as a loose index scan ("skip scan") over (organization_id, status, type): per
 * status, jump from one type to the next with one index probe each, 4 × (types + 1) probes in
 * all: ~1 ms, where `SELECT DISTINCT type … WHERE organization_id = $1` read every one of the
 * 1,000,000 index entries (65–150 ms, the largest share of every request before).
 */
function availableTypesSql(orgId: string) {
  return sql<string[] | null>`(SELECT array_agg(DISTINCT x.type ORDER BY x.type) FROM unnest(${STATUS_ARRAY}) AS s(status)
    CROSS JOIN LATERAL (
      WITH RECURSIVE t(type) AS (
        (SELECT type FROM intel_indicators WHERE organization_id = ${orgId} AND status = s.status ORDER BY type LIMIT 1)
        UNION ALL
        SELECT (SELECT i.type FROM intel_indicators i WHERE i.organization_id = ${orgId} AND i.status = s.status AND i.type > t.type ORDER BY i.type LIMIT 1)
        FROM t WHERE t.type IS NOT NULL
      ) SELECT type FROM t WHERE type IS NOT NULL
    ) x)`;
}

type StatusCounts = Record<IocStatus, number>;
/** What a (organization, filters) key's first page computes and its later pages and repeats reuse. */
type Summary = { counts: StatusCounts; types: string[] };

/** The organization's indicator generation (migration 0130), as text: read with what it stamps. */
function generationSql(orgId: string) {
  return sql<string>`coalesce((SELECT generation FROM intel_indicator_generations WHERE organization_id = ${orgId}), 0)::text`;
}
/** Summaries kept per process: a few hundred bytes each. */
const SUMMARY_CACHE_ENTRIES = 2_000;
/**
 * A search with at most this many matches has its pages cut from its sorted match list, read once
 * (one GIN scan) and kept: the order walk would read too many rows for so few matches, and the GIN
 * scan it needs instead cost as much as the count on every page and status filter of the search.
 */
const LIST_MAX_MATCHES = 10_000;
/**
 * A search not seen before that the sample says matches at most this many rows is computed from
 * its sorted match list alone (the counts are the list's tally): one GIN scan where counting and
 * then listing took two. Below LIST_MAX_MATCHES: the estimate is a sample's.
 */
const NARROW_ESTIMATE = 6_000;
/** Characters of match lists kept per process (37 per match: the id and a status digit): ~8 MB. */
const LIST_CACHE_CHARS = 8_000_000;
const ID_CHARS = 36;
const ENTRY_CHARS = ID_CHARS + 1;
/** Each status as one digit, its index in IOC_STATUSES. */
const STATUS_DIGIT = sql.raw(`CASE status ${IOC_STATUSES.map((st, i) => `WHEN '${st}' THEN '${i}'`).join(' ')} END`);

/** Table-wide row counts (planner statistics): upper bounds of any one organization's. */
export interface IndicatorStats {
  total: number;
  byStatus: Partial<StatusCounts>;
}

/**
 * A walk is tried when it should read fewer rows than the GIN path would handle matches (with a
 * weight: a row of the narrow copy is cheaper to walk than a match to find and sort, a row of
 * intel_indicators dearer), and never more than this many.
 */
const WALK_MAX_ROWS = 30_000;
/** Statistics are only used to choose a plan, never for an answer: re-read every minute. */
const STATS_TTL_MS = 60_000;

/**
 * How many rows a walk down the newest-first order would read to fill the page, once the exact
 * counts are known. Matches are spread over the order of their range (the organization's rows,
 * or its rows of one status) at a density of matches / range, so the walk reads about
 * need × range / matches rows and stops: cheap when the search is broad. When it would be long
 * (a narrow search, a rare status) the matches come from the trigram GIN and are sorted, cheap
 * because they are few. `range` comes from table-wide statistics, an upper bound of the
 * organization's share, so the estimate errs towards the GIN; the walk is bounded anyway.
 */
export function walkEstimate(stats: IndicatorStats, query: { status?: IocStatus | undefined; page: number; perPage: number }, matches: number): number {
  if (matches <= 0) return Infinity;
  const range = query.status ? (stats.byStatus[query.status] ?? 0) * 1.2 + 1_000 : stats.total;
  return Math.ceil((query.page * query.perPage * range) / matches);
}

/** What the list keeps per process and reads from: see {@link createIocListState}. */
export interface IocListState {
  db: Database;
  stats: () => Promise<IndicatorStats>;
  estimate: (orgId: string, types: readonly string[] | undefined, term: string) => number | null;
  listMaxMatches: number;
  summaries: ReturnType<typeof createGenerationCache<Summary>>;
  /** A narrow search's matches, newest first: per match its id and status digit (ENTRY_CHARS). */
  matchLists: ReturnType<typeof createGenerationCache<string>>;
}

export interface IocListDeps {
  db: Database;
  stats?: () => Promise<IndicatorStats>;
  /** Tests: force a plan (estimated matches of a new search; the list path's limit). */
  estimate?: (orgId: string, types: readonly string[] | undefined, term: string) => number | null;
  listMaxMatches?: number;
}

/** The list's per-process state: planner statistics (re-read every STATS_TTL_MS), the summaries and match lists. */
export function createIocListState(deps: IocListDeps): IocListState {
  const { db } = deps;
  let cachedStats: { at: number; stats: Promise<IndicatorStats> } | null = null;
  async function readStats(): Promise<IndicatorStats> {
    const { rows } = await sql<{ reltuples: number; vals: string[] | null; freqs: number[] | null }>`
      SELECT c.reltuples::float8 AS reltuples, s.most_common_vals::text::text[] AS vals, s.most_common_freqs::float8[] AS freqs
      FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = 'intel_indicators' AND s.attname = 'status'
      WHERE c.oid = 'intel_indicators'::regclass`.execute(db);
    const r = rows[0];
    // Never analyzed (reltuples -1): assume large, i.e. prefer the GIN.
    if (!r || r.reltuples < 0) return { total: Infinity, byStatus: {} };
    const byStatus: Partial<StatusCounts> = {};
    r.vals?.forEach((v, i) => (byStatus[v as IocStatus] = (r.freqs?.[i] ?? 1) * r.reltuples));
    return { total: r.reltuples, byStatus };
  }
  const stats =
    deps.stats ??
    (() => {
      if (!cachedStats || Date.now() - cachedStats.at > STATS_TTL_MS) {
        const p = readStats();
        cachedStats = { at: Date.now(), stats: p };
        p.catch(() => (cachedStats = null));
      }
      return cachedStats.stats;
    });

  return {
    db,
    stats,
    estimate: deps.estimate ?? createSearchSampler(db).estimate,
    listMaxMatches: deps.listMaxMatches ?? LIST_MAX_MATCHES,
    summaries: createGenerationCache<Summary>({ maxEntries: SUMMARY_CACHE_ENTRIES }),
    matchLists: createGenerationCache<string>({ maxEntries: SUMMARY_CACHE_ENTRIES, maxWeight: LIST_CACHE_CHARS, weigh: (list) => list.length }),
  };
}

const PAGE_COLUMNS = sql.raw('i.id, i.value, i.normalized_value, i.type, i.item_id, i.intel_title, i.source_label, i.status, i.last_checked_at');

/** `matches`: of the query (its status, if any); `allMatches`: of the search whatever the status (what the GIN path reads). */
async function searchPage(state: IocListState, orgId: string, query: IocListInput, search: { key: string; generation: string; pattern: string; fromWhere: RawBuilder<unknown> }, matches: number, allMatches: number) {
  const { pattern } = search;
  const limit = query.perPage;
  const offset = (query.page - 1) * query.perPage;
  const expected = Math.max(0, Math.min(limit, matches - offset));
  if (expected === 0) return [];
  const walk = walkEstimate(await state.stats(), query, matches);
  if (walk <= Math.min(WALK_MAX_ROWS, Math.max(2_000, (query.status ? 2 : 1) * allMatches))) {
    // Read at most `bound` rows of the order (twice the estimate): if the matches are bunched
    // elsewhere in time and the page is not full by then, fall through to the GIN.
    const bound = Math.min(2 * walk + limit + offset, 2 * WALK_MAX_ROWS);
    const { rows } = query.status
      ? await sql<DbRow>`
          SELECT ${PAGE_COLUMNS} FROM (
            SELECT id, created_at FROM (
              SELECT id, created_at, search_value FROM intel_indicator_search
              WHERE organization_id = ${orgId} AND status = ${query.status}${typeCondition(query.type)}
              ORDER BY created_at DESC, id DESC LIMIT ${bound}
            ) w WHERE search_value LIKE lower(${pattern})
            ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}
          ) p JOIN intel_indicators i ON i.id = p.id
          ORDER BY p.created_at DESC, p.id DESC`.execute(state.db)
      : await sql<DbRow>`
          SELECT ${PAGE_COLUMNS} FROM (
            SELECT * FROM intel_indicators
            WHERE organization_id = ${orgId}${typeCondition(query.type)}
            ORDER BY created_at DESC, id DESC LIMIT ${bound}
          ) i WHERE i.normalized_value ILIKE ${pattern}
          ORDER BY i.created_at DESC, i.id DESC LIMIT ${limit} OFFSET ${offset}`.execute(state.db);
    if (rows.length >= expected) return rows;
  }
  if (allMatches <= state.listMaxMatches) return pageOfList(state, orgId, query, await matchList(state, orgId, search.key, search.generation, search.fromWhere));
  const { rows } = await sql<DbRow>`
    WITH m AS MATERIALIZED (
      SELECT id, created_at FROM intel_indicator_search
      WHERE organization_id = ${orgId}${typeCondition(query.type)}${query.status ? sql` AND status = ${query.status}` : sql``}
        AND search_value LIKE lower(${pattern})
    )
    SELECT ${PAGE_COLUMNS} FROM (SELECT id, created_at FROM m ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}) p
    JOIN intel_indicators i ON i.id = p.id
    ORDER BY p.created_at DESC, p.id DESC`.execute(state.db);
  return rows;
}

/** The search's matches in page order (created_at DESC, id DESC), from the cache at `generation` or one GIN scan. */
async function matchList(state: IocListState, orgId: string, key: string, generation: string, fromWhere: RawBuilder<unknown>): Promise<string> {
  const hit = state.matchLists.valid(key, generation);
  if (hit !== undefined) return hit;
  return (await readMatchList(state, orgId, key, fromWhere)).list;
}

/** One GIN scan: every match as its id and status digit, newest first; kept under the generation read with it. */
async function readMatchList(state: IocListState, orgId: string, key: string, fromWhere: RawBuilder<unknown>) {
  const { rows } = await sql<{ list: string | null; types: string[] | null; generation: string }>`
    SELECT string_agg(id::text || ${STATUS_DIGIT}, '' ORDER BY created_at DESC, id DESC) AS list,
           ${availableTypesSql(orgId)} AS types, ${generationSql(orgId)} AS generation
    FROM ${fromWhere}`.execute(state.db);
  const r = { list: rows[0]!.list ?? '', types: rows[0]!.types ?? [], generation: rows[0]!.generation };
  state.matchLists.set(key, r.generation, r.list);
  return r;
}

/** The page of `list` (matches of any status) for the query's status filter, page and size: its rows by primary key. */
async function pageOfList(state: IocListState, orgId: string, query: IocListInput, list: string): Promise<DbRow[]> {
  const digit = query.status ? String(IOC_STATUSES.indexOf(query.status)) : null;
  const offset = (query.page - 1) * query.perPage;
  const ids: string[] = [];
  for (let at = 0, seen = 0; at < list.length && ids.length < query.perPage; at += ENTRY_CHARS) {
    if (digit !== null && list[at + ID_CHARS] !== digit) continue;
    if (seen++ >= offset) ids.push(list.slice(at, at + ID_CHARS));
  }
  if (!ids.length) return [];
  const { rows } = await sql<DbRow>`SELECT ${PAGE_COLUMNS} FROM intel_indicators i WHERE i.organization_id = ${orgId} AND i.id = ANY(${ids}::uuid[])`.execute(state.db);
  const position = new Map(ids.map((id, n) => [id, n]));
  return rows.sort((a, b) => position.get(a.id)! - position.get(b.id)!);
}

/**
 * The key's summary: from the cache when the organization's generation, read now, is the one
 * it was computed at; otherwise from `compute`, a statement that also returns the generation
 * (same snapshot) under which the result is kept. A key never seen costs no extra round trip.
 */
async function summary(state: IocListState, orgId: string, key: string, compute: () => Promise<Summary & { generation: string }>): Promise<Summary & { generation: string }> {
  if (state.summaries.has(key)) {
    const { rows } = await sql<{ generation: string }>`SELECT ${generationSql(orgId)} AS generation`.execute(state.db);
    const generation = rows[0]!.generation;
    const hit = state.summaries.valid(key, generation);
    if (hit) return { ...hit, generation };
  }
  const computed = await compute();
  state.summaries.set(key, computed.generation, { counts: computed.counts, types: computed.types });
  return computed;
}

/** The exact counts of `fromWhere`'s rows by status, availableTypes and the generation, in one statement (one snapshot). */
async function computeSummary(db: Database, orgId: string, fromWhere: RawBuilder<unknown>): Promise<Summary & { generation: string }> {
  const { rows } = await sql<StatusCounts & { types: string[] | null; generation: string }>`
    SELECT count(*) FILTER (WHERE status = 'found')::int AS found, count(*) FILTER (WHERE status = 'clean')::int AS clean,
           count(*) FILTER (WHERE status = 'unchecked')::int AS unchecked, count(*) FILTER (WHERE status = 'unknown')::int AS unknown,
           ${availableTypesSql(orgId)} AS types, ${generationSql(orgId)} AS generation
    FROM ${fromWhere}`.execute(db);
  const r = rows[0]!;
  return { counts: { found: r.found, clean: r.clean, unchecked: r.unchecked, unknown: r.unknown }, types: r.types ?? [], generation: r.generation };
}

async function searchList(state: IocListState, orgId: string, query: IocListInput & { search: string }) {
  // A pasted defanged value (hxxp://45.142.212[.]100/…) is searched as the value it stands for.
  const term = refang(query.search);
  const pattern = containsPattern(term);
  const key = `${orgId}\u0000${query.type?.join(',') ?? ''}\u0000${pattern}`;
  // search_value is lower(normalized_value): `LIKE lower(p)` is exactly `normalized_value ILIKE p`.
  const fromWhere = sql`intel_indicator_search WHERE organization_id = ${orgId}${typeCondition(query.type)} AND search_value LIKE lower(${pattern})`;
  const { counts, types, generation } = await summary(state, orgId, key, async () => {
    const matches = state.estimate(orgId, query.type, term);
    if (matches === null || matches > Math.min(NARROW_ESTIMATE, state.listMaxMatches)) return computeSummary(state.db, orgId, fromWhere);
    const { list, ...rest } = await readMatchList(state, orgId, key, fromWhere);
    const counts: StatusCounts = { found: 0, clean: 0, unchecked: 0, unknown: 0 };
    for (let at = ID_CHARS; at < list.length; at += ENTRY_CHARS) counts[IOC_STATUSES[Number(list[at])]!]++;
    return { counts, ...rest };
  });
  const all = counts.found + counts.clean + counts.unchecked + counts.unknown;
  return { rows: await searchPage(state, orgId, query, { key, generation, pattern, fromWhere }, query.status ? counts[query.status] : all, all), counts, types };
}

async function plainList(state: IocListState, orgId: string, query: IocListInput) {
  const typeFilter = query.type?.length ? [...query.type] : null;
  let rowsQ = state.db.selectFrom('intelIndicators').where('organizationId', '=', orgId);
  if (typeFilter) rowsQ = rowsQ.where('type', 'in', typeFilter);
  if (query.status) rowsQ = rowsQ.where('status', '=', query.status);
  const key = `${orgId}\u0000${typeFilter?.join(',') ?? ''}`;
  const [rows, { counts, types }] = await Promise.all([
    rowsQ.select(ROW_COLUMNS).orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(query.perPage).offset((query.page - 1) * query.perPage).execute(),
    summary(state, orgId, key, () => computeSummary(state.db, orgId, sql`intel_indicators WHERE organization_id = ${orgId}${typeCondition(typeFilter ?? undefined)}`)),
  ]);
  return { rows, counts, types };
}

/**
 * The flattened indicator list. Each indicator row carries its current status (the latest
 * check's outcome, maintained by recordCheck), so filtering and counting never look at checks.
 *
 * With a search, the matches come from intel_indicator_search (migration 0006: a narrow copy of
 * the searchable columns, partitioned by type, trigram GIN on the lowered value):
 *   1. one statement: the exact statusCounts (count(*) FILTER, one pass over the matches) and
 *      availableTypes (loose index scan);
 *   2. the page, by the cheaper of a bounded walk down an order index (broad searches) and the
 *      GIN's matches sorted (narrow ones), chosen from the exact counts (walkEstimate); only the
 *      page's ≤ 200 rows are read from intel_indicators, by primary key.
 * A broad search so costs about one pass over its matches, once: step 1's answer is kept per
 * (organization, search, type) with the organization's indicator generation (migration 0130,
 * counts-cache.ts) and served again, to later pages, other status filters and repeats, only while
 * that generation is unchanged. A narrow search (≤ LIST_MAX_MATCHES) keeps its sorted match list
 * too, and cuts every page from it; one not seen before that a sample of the organization's values
 * says is narrow is counted from that list directly (search-sample.repo.ts). (Finding the matches once for both in
 * one statement cost ~30 % more for a 30,000-match search: materializing them and sorting for
 * the page. Running a count and a page query side by side on two connections doubled the CPU
 * per request, which on 2 shared cores made requests slower, not faster.)
 * Without a search the order index and the (organization_id, status, type) index serve rows and
 * counts directly.
 */
export async function listIocs(state: IocListState, ctx: RequestContext, query: IocListInput) {
  const orgId = ctx.actor.organizationId;
  const { rows, counts, types } = query.search ? await searchList(state, orgId, { ...query, search: query.search }) : await plainList(state, orgId, query);
  const total = query.status ? counts[query.status] : Object.values(counts).reduce((a, b) => a + b, 0);
  return {
    rows: rows.map(toRow),
    total,
    page: query.page,
    perPage: query.perPage,
    hasNext: query.page * query.perPage < total,
    statusCounts: counts,
    availableTypes: types,
  };
}
