import { sql } from 'kysely';
import type { Database } from '../../../platform/db/database.js';

/**
 * What the intel says adversaries use: per ATT&CK technique, the items naming it in a window,
 * with the actors and malware those items name. Read by the coverage module (its "intel
 * pressure") through intel's index.ts.
 *
 * Sub-techniques roll up to their parent (T1059.001 → T1059): coverage is judged per technique.
 * The technique id of a mapping is `technique`, else `subTechnique` (attack-id.fns.ts
 * `techniqueIdOf`, kept in SQL by migration 0096's generated columns).
 * Duplicates (`duplicate_of`) and retracted items do not count; an item's time is its publication
 * date, else when Rampart stored it.
 */
export interface PressureScope {
  organizationId: string;
  since: Date;
  /** Lower-cased actor names (with their aliases): only items naming one of them count. */
  actorNames?: readonly string[] | null;
  /** Lower-cased malware names (with their aliases). */
  malwareNames?: readonly string[] | null;
}

export interface TechniquePressure {
  techniqueId: string;
  items: number;
  actors: number;
  malware: number;
  lastSeenAt: Date;
}

export interface TechniqueIntel {
  actors: Array<{ name: string; items: number }>;
  malware: Array<{ name: string; items: number }>;
  recentItems: Array<{ id: string; title: string; url: string | null; seenAt: Date }>;
}

/** The window's items naming an ATT&CK technique (and the actor or malware filter), as a WHERE clause on intel_items `i`. */
function inWindow(s: PressureScope) {
  const actorFilter = s.actorNames?.length ? sql`AND i.actor_names && ${[...s.actorNames]}::text[]` : sql``;
  const malwareFilter = s.malwareNames?.length ? sql`AND i.malware_names && ${[...s.malwareNames]}::text[]` : sql``;
  return sql`i.organization_id = ${s.organizationId} AND i.seen_at >= ${s.since}
    AND i.duplicate_of IS NULL AND i.status <> 'retracted' AND i.attack_parents <> '{}' ${actorFilter} ${malwareFilter}`;
}

/** The window's items as (technique, item) rows, for some techniques (the details below). */
function perTechnique(s: PressureScope, techniqueIds: readonly string[]) {
  return sql`
    per AS MATERIALIZED (
      SELECT t AS tid, i.seen_at AS seen, i.id, i.title, i.url, i.classification
      FROM intel_items i, unnest(i.attack_parents) t
      WHERE ${inWindow(s)} AND i.attack_parents && ${[...techniqueIds]}::text[] AND t = ANY(${[...techniqueIds]}::text[])
    )`;
}

/**
 * Per technique: items, distinct actors and malware (names compared lower-cased), most recent
 * sighting (`only`: just these techniques). Without an actor or malware filter it reads the
 * rollups migration 0115's triggers keep on intel_items ({@link attackPressureFromRollups}); a
 * filtered request scans the items the filter narrows ({@link attackPressureScan}).
 */
export function attackPressure(db: Database, s: PressureScope, only?: readonly string[]): Promise<TechniquePressure[]> {
  return s.actorNames?.length || s.malwareNames?.length ? attackPressureScan(db, s, only) : attackPressureFromRollups(db, s, only);
}

const DAY_MS = 86_400_000;

/**
 * From the rollups: items are the window's whole UTC days in intel_attack_daily plus the items of
 * the day the window starts in (scanned: the window starts mid-day); distinct actors and malware
 * are the (technique, name) sightings whose last sighting is inside the window, and the last
 * sighting is the technique's own (an item naming it in the window makes it the window's newest,
 * the window having no end). Reads about window-days × techniques + pairs rows, whatever the
 * number of items.
 */
export async function attackPressureFromRollups(db: Database, s: PressureScope, only?: readonly string[]): Promise<TechniquePressure[]> {
  const nextDay = new Date(Math.floor(s.since.getTime() / DAY_MS) * DAY_MS + DAY_MS);
  const onlyDaily = only ? sql`AND d.technique_id = ANY(${[...only]}::text[])` : sql``;
  const onlySightings = only ? sql`AND x.technique_id = ANY(${[...only]}::text[])` : sql``;
  const onlyItems = only ? sql`AND i.attack_parents && ${[...only]}::text[]` : sql``;
  const { rows } = await sql<{ tid: string; items: number; actors: number; malware: number; lastSeen: Date }>`
    WITH counts AS (
      SELECT tid, sum(n)::int AS items FROM (
        SELECT d.technique_id AS tid, d.items AS n FROM intel_attack_daily d
        WHERE d.organization_id = ${s.organizationId} AND d.day >= ${nextDay.toISOString().slice(0, 10)}::date ${onlyDaily}
        UNION ALL
        SELECT t, 1 FROM intel_items i, unnest(i.attack_parents) t WHERE ${inWindow(s)} AND i.seen_at < ${nextDay} ${onlyItems}
      ) x GROUP BY tid
    ),
    seen AS (
      SELECT x.technique_id AS tid, count(*) FILTER (WHERE x.kind = 'actor')::int AS actors, count(*) FILTER (WHERE x.kind = 'malware')::int AS malware,
        max(x.last_seen_at) FILTER (WHERE x.kind = 'technique') AS last_seen
      FROM intel_attack_sightings x WHERE x.organization_id = ${s.organizationId} AND x.last_seen_at >= ${s.since} ${onlySightings}
      GROUP BY x.technique_id
    )
    SELECT counts.tid, counts.items, seen.actors, seen.malware, seen.last_seen AS "lastSeen" FROM counts JOIN seen USING (tid) WHERE counts.items > 0`.execute(db);
  return rows.filter((r) => !only || only.includes(r.tid)).map((r) => ({ techniqueId: r.tid, items: r.items, actors: r.actors, malware: r.malware, lastSeenAt: r.lastSeen }));
}

/**
 * The same from the items themselves: one statement over migration 0096's generated columns
 * (attack_parents, actor_names, malware_names, seen_at), each part an index-only scan of
 * intel_items_attack_window_idx; the distinct counts are hash aggregates of (technique, name)
 * pairs (work_mem raised for this transaction so they stay in memory).
 */
export async function attackPressureScan(db: Database, s: PressureScope, only?: readonly string[]): Promise<TechniquePressure[]> {
  const where = only ? sql`${inWindow(s)} AND i.attack_parents && ${[...only]}::text[]` : inWindow(s);
  const distinctNames = (column: 'actor_names' | 'malware_names') => sql`
    SELECT tid, count(*)::int AS n FROM (
      SELECT DISTINCT t AS tid, n FROM intel_items i, unnest(i.attack_parents) t, unnest(i.${sql.raw(column)}) n WHERE ${where} AND i.${sql.raw(column)} <> '{}'
    ) pairs GROUP BY tid`;
  const rows = await db.transaction().execute(async (tx) => {
    await sql`SET LOCAL work_mem = '64MB'`.execute(tx);
    return (await sql<{ tid: string; items: number; actors: number; malware: number; lastSeen: Date }>`
      WITH counts AS (
        SELECT t AS tid, count(*)::int AS items, max(seen_at) AS last_seen
        FROM (SELECT unnest(i.attack_parents) AS t, i.seen_at FROM intel_items i WHERE ${where}) x GROUP BY t
      ),
      a AS (${distinctNames('actor_names')}),
      m AS (${distinctNames('malware_names')})
      SELECT counts.tid, counts.items, coalesce(a.n, 0) AS actors, coalesce(m.n, 0) AS malware, counts.last_seen
      FROM counts LEFT JOIN a USING (tid) LEFT JOIN m USING (tid)`.execute(tx)).rows;
  });
  return rows.filter((r) => !only || only.includes(r.tid)).map((r) => ({ techniqueId: r.tid, items: r.items, actors: r.actors, malware: r.malware, lastSeenAt: r.lastSeen }));
}

/**
 * The intel behind some techniques: their actors and malware by number of items (most first), and
 * their most recent items. For the top gaps and a technique's panel.
 */
export async function attackPressureDetails(db: Database, s: PressureScope, techniqueIds: readonly string[], itemsPerTechnique: number): Promise<Map<string, TechniqueIntel>> {
  const out = new Map<string, TechniqueIntel>(techniqueIds.map((id) => [id, { actors: [], malware: [], recentItems: [] }]));
  if (techniqueIds.length === 0) return out;
  const [named, recent] = await Promise.all([
    // Names as the items spell them (the generated columns hold them lower-cased).
    sql<{ tid: string; kind: 'actor' | 'malware'; name: string; items: number }>`
      WITH ${perTechnique(s, techniqueIds)},
      named AS (
        SELECT per.tid, per.id, k.kind, btrim(x->>'name') AS name
        FROM per, (VALUES ('actor'), ('malware')) k(kind),
          jsonb_array_elements(CASE WHEN jsonb_typeof(per.classification->k.kind) = 'array' THEN per.classification->k.kind ELSE '[]'::jsonb END) x
        WHERE jsonb_typeof(x) = 'object' AND coalesce(btrim(x->>'name'), '') <> ''
      )
      SELECT tid, kind, min(name) AS name, count(DISTINCT id)::int AS items FROM named GROUP BY tid, kind, lower(name)
      ORDER BY items DESC, name`.execute(db),
    sql<{ tid: string; id: string; title: string; url: string | null; seen: Date }>`
      WITH ${perTechnique(s, techniqueIds)}
      SELECT tid, id, title, url, seen FROM (
        SELECT per.*, row_number() OVER (PARTITION BY tid ORDER BY seen DESC, id DESC) AS rn FROM per
      ) ranked WHERE rn <= ${itemsPerTechnique} ORDER BY seen DESC, id DESC`.execute(db),
  ]);
  for (const r of named.rows) {
    const entry = out.get(r.tid)!;
    (r.kind === 'actor' ? entry.actors : entry.malware).push({ name: r.name, items: r.items });
  }
  for (const r of recent.rows) out.get(r.tid)!.recentItems.push({ id: r.id, title: r.title, url: r.url, seenAt: r.seen });
  return out;
}
