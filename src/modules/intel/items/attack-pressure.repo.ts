import { sql } from 'kysely';
import type { Database } from '../../../platform/db/database.js';

/**
 * What the intel says adversaries use: per ATT&CK technique, the items naming it in a window,
 * with the actors and malware those items name. Read by the coverage module (its "intel
 * pressure") through intel's index.ts.
 *
 * Sub-techniques roll up to their parent (T1059.001 → T1059): coverage is judged per technique.
 * The technique id of a mapping is `technique`, else `subTechnique` (attack-id.fns.ts
 * `techniqueIdOf`, written here in SQL so the whole window aggregates in one statement).
 * Duplicates (`duplicate_of`) and retracted items do not count; an item's time is its publication
 * date, else when Rampart stored it (the intel_items_org_published_idx expression).
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

const names = (key: string) => sql.raw(`ARRAY(SELECT DISTINCT x->>'name' FROM jsonb_array_elements(CASE WHEN jsonb_typeof(i.classification->'${key}') = 'array' THEN i.classification->'${key}' ELSE '[]'::jsonb END) x WHERE coalesce(x->>'name', '') <> '')`);

/** The window's items as (technique, item) rows with the item's actors and malware: the CTEs every reader here starts from. */
function perTechnique(s: PressureScope, techniqueIds?: readonly string[]) {
  const actorFilter = s.actorNames?.length ? sql`AND EXISTS (SELECT 1 FROM unnest(it.actors) a WHERE lower(a) = ANY(${[...s.actorNames]}::text[]))` : sql``;
  const malwareFilter = s.malwareNames?.length ? sql`AND EXISTS (SELECT 1 FROM unnest(it.malware) m WHERE lower(m) = ANY(${[...s.malwareNames]}::text[]))` : sql``;
  const only = techniqueIds ? sql`AND t = ANY(${[...techniqueIds]}::text[])` : sql``;
  return sql`
    items AS (
      SELECT i.id, i.title, i.url, coalesce(i.published_at, i.created_at) AS seen,
        ARRAY(SELECT DISTINCT split_part(upper(coalesce(nullif(x->>'technique', ''), x->>'subTechnique')), '.', 1)
              FROM jsonb_array_elements(CASE WHEN jsonb_typeof(i.classification->'attack') = 'array' THEN i.classification->'attack' ELSE '[]'::jsonb END) x) AS techs,
        ${names('actor')} AS actors,
        ${names('malware')} AS malware
      FROM intel_items i
      WHERE i.organization_id = ${s.organizationId} AND coalesce(i.published_at, i.created_at) >= ${s.since}
        AND i.duplicate_of IS NULL AND i.status <> 'retracted' AND jsonb_typeof(i.classification->'attack') = 'array'
    ),
    per AS (
      SELECT t AS tid, it.id, it.title, it.url, it.seen, it.actors, it.malware
      FROM items it, unnest(it.techs) t
      WHERE t ~ '^T[0-9]{4}$' ${actorFilter} ${malwareFilter} ${only}
    )`;
}

/** Per technique: items, distinct actors and malware (case-insensitive), most recent sighting. One statement. */
export async function attackPressure(db: Database, s: PressureScope): Promise<TechniquePressure[]> {
  const { rows } = await sql<{ tid: string; items: number; actors: number; malware: number; lastSeen: Date }>`
    WITH ${perTechnique(s)},
    counts AS (SELECT tid, count(*)::int AS items, max(seen) AS last_seen FROM per GROUP BY tid),
    a AS (SELECT tid, count(DISTINCT lower(n))::int AS n FROM per, unnest(per.actors) n GROUP BY tid),
    m AS (SELECT tid, count(DISTINCT lower(n))::int AS n FROM per, unnest(per.malware) n GROUP BY tid)
    SELECT counts.tid, counts.items, coalesce(a.n, 0) AS actors, coalesce(m.n, 0) AS malware, counts.last_seen
    FROM counts LEFT JOIN a USING (tid) LEFT JOIN m USING (tid)`.execute(db);
  return rows.map((r) => ({ techniqueId: r.tid, items: r.items, actors: r.actors, malware: r.malware, lastSeenAt: r.lastSeen }));
}

/**
 * The intel behind some techniques: their actors and malware by number of items (most first), and
 * their most recent items. For the top gaps and a technique's panel.
 */
export async function attackPressureDetails(db: Database, s: PressureScope, techniqueIds: readonly string[], itemsPerTechnique: number): Promise<Map<string, TechniqueIntel>> {
  const out = new Map<string, TechniqueIntel>(techniqueIds.map((id) => [id, { actors: [], malware: [], recentItems: [] }]));
  if (techniqueIds.length === 0) return out;
  const [named, recent] = await Promise.all([
    sql<{ tid: string; kind: 'actor' | 'malware'; name: string; items: number }>`
      WITH ${perTechnique(s, techniqueIds)}
      SELECT tid, 'actor' AS kind, min(n) AS name, count(*)::int AS items FROM per, unnest(per.actors) n GROUP BY tid, lower(n)
      UNION ALL
      SELECT tid, 'malware' AS kind, min(n) AS name, count(*)::int AS items FROM per, unnest(per.malware) n GROUP BY tid, lower(n)
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
