import { sql } from 'kysely';
import { uuidv7 } from './ids.fns.js';
import type { Database, Queryable } from '../../platform/db/database.js';
import { assessThreats, createAssessedThreats, insertEvents } from './assess.service.js';
import type { EventBus } from '../../platform/events.js';
import { readWatermark, writeWatermark } from './settings.repo.js';
import { raw } from './assess.store.js';

/**
 * Threats from intel: one per CVE an item names (classification mappings with framework `cve`),
 * created when an item first mentions it and linked to every item that does. Runs as a pass of
 * the worker's scheduler (intel never calls hunt): items processed after the organization's
 * watermark are read, new threats get a create/new_threat run, threats with new items a
 * reassess/new_intel run. The watermark is inclusive (`>=`): items at the mark are read again
 * and their links are no-ops, so items sharing one processed_at across pages are not skipped.
 * The page is read in a total order (processed_at, then the item's id, then the CVE's place in its
 * mappings): threats are created in that order, so their ids — the tie-break of every threat list —
 * do not depend on the plan PostgreSQL picks for items stamped at the same instant.
 * A linked item that changed after its threat's latest run (an OSV record revised: a new `fixed`
 * version, `modified` moved; the intel sync stores it again with a new processed_at) is a reason
 * to reassess too (`intel_revised`): the ranges and scores are the record's latest.
 */
const PAGE = 5000;

// Names given to vulnerabilities in prose ("Log4Shell", "Citrix Bleed", "regreSSHion").
const ALIAS_RE = /\b((?:[A-Z][A-Za-z0-9]*\s)?[A-Za-z0-9]*(?:Shell|Bleed|SSHion|Hole|Jack|Ghost|Doom|Wrangler|Blue|Nightmare|Spoof|Spectre|Meltdown|Heist))\b/g;

// The same suffixes alone: a cheap test that skips ALIAS_RE's backtracking for the texts that name none (most).
const ALIAS_HINT = /(?:Shell|Bleed|SSHion|Hole|Jack|Ghost|Doom|Wrangler|Blue|Nightmare|Spoof|Spectre|Meltdown|Heist)\b/;

export function aliasesIn(text: string, cve: string): string[] {
  if (!ALIAS_HINT.test(text)) return [];
  const out = new Set<string>();
  for (const m of text.matchAll(ALIAS_RE)) {
    const a = m[1]!.trim();
    if (a.length >= 6 && a.toUpperCase() !== cve && !/^(the|a|an|and|via) /i.test(a) && /[a-z]/.test(a)) out.add(a.replace(/^(?:The|A|An)\s/, ''));
  }
  return [...out].slice(0, 5);
}

export async function syncThreatsFromIntel(db: Database, organizationId: string, opts: { now?: Date; events?: EventBus; settledBefore?: Date } = {}): Promise<{ created: string[]; updated: string[] }> {
  const now = opts.now ?? new Date();
  const mark = await readWatermark(db, organizationId);
  // A threat per CVE an item names; an OSV record or CSAF vulnerability that names no CVE at all
  // is its own threat, keyed by its id (GHSA-…, GO-…, RUSTSEC-…, the CSAF tracking id).
  const { rows } = await sql<{ itemId: string; cve: string; title: string; text: string; processedAt: Date; actors: unknown; vulnIds: string[]; format: string | null }>`
    SELECT i.id AS "itemId", k.key AS cve, i.title, concat_ws(' ', i.title, i.summary) AS text, i.processed_at AS "processedAt",
           i.classification->'actor' AS actors, i.vulnerability->>'format' AS format,
           ARRAY(SELECT x FROM jsonb_array_elements_text(COALESCE(i.vulnerability->'aliases', '[]'::jsonb) || jsonb_build_array(i.vulnerability->'id')) x WHERE x IS NOT NULL) AS "vulnIds"
    FROM intel_items i
    CROSS JOIN LATERAL (
      SELECT upper(m->>'id') AS key, n AS ord
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(i.classification->'mappings') = 'array' THEN i.classification->'mappings' ELSE '[]'::jsonb END) WITH ORDINALITY AS e(m, n)
        WHERE m->>'framework' = 'cve' AND m->>'id' ~* '^CVE-[0-9]{4}-[0-9]{4,}$'
      UNION ALL
      SELECT i.vulnerability->>'id', 0
        WHERE i.vulnerability->>'format' IN ('osv', 'csaf') AND i.vulnerability->>'id' IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text(COALESCE(i.vulnerability->'aliases', '[]'::jsonb) || jsonb_build_array(i.vulnerability->'id')) x WHERE x ~* '^CVE-[0-9]{4}-[0-9]{4,}$')
    ) k
    WHERE i.organization_id = ${organizationId} AND i.processed_at IS NOT NULL AND i.processed_at >= ${mark ?? new Date(0)} AND i.processed_at <= ${opts.settledBefore ?? now}
    ORDER BY i.processed_at, i.id, k.ord LIMIT ${PAGE}`.execute(raw(db));
  if (rows.length === 0) return { created: [], updated: [] };

  const byCve = new Map<string, typeof rows>();
  for (const r of rows) {
    const list = byCve.get(r.cve);
    if (list) list.push(r);
    else byCve.set(r.cve, [r]);
  }
  const all = [...byCve].map(([cve, list]) => {
    const first = list[0]!;
    // The vulnerability's other ids (GHSA, PYSEC, GO…) from structured records: one threat, keyed by the CVE.
    const aliases = [...new Set(list.flatMap((r) => [...r.vulnIds.filter((v) => v.toUpperCase() !== cve), ...aliasesIn(r.text, cve)]))];
    const actors = list.flatMap((r) => (Array.isArray(r.actors) ? r.actors : []) as Array<{ name?: string }>).map((a) => a.name).filter((n): n is string => !!n);
    return { id: uuidv7(), key: cve, type: /^CVE-/.test(cve) ? 'cve' : first.format === 'csaf' ? 'csaf' : 'osv', title: first.title.includes(cve) ? first.title : `${cve}: ${first.title}`, aliases, actor: actors[0] ?? null, label: first.title };
  });
  // The page's new threats are created already assessed, in batches (createAssessedThreats); the
  // threats that exist, and any new one whose batch did not commit, take the two steps below:
  // linked and noted here, then assessed.
  const { rows: known } = await sql<{ key: string }>`
    SELECT canonical_key AS key FROM hunt_threats WHERE organization_id = ${organizationId} AND canonical_key = ANY(${all.map((t) => t.key)}::text[])`.execute(raw(db));
  const exists = new Set(known.map((k) => k.key));
  const fresh = all.filter((t) => !exists.has(t.key)).map((t) => ({ ...t, itemIds: [...new Set(byCve.get(t.key)!.map((r) => r.itemId))] }));
  const assessed = new Set(await createAssessedThreats(db, organizationId, fresh, { kind: 'create', trigger: 'new_threat', now, events: opts.events }));
  const threats = all.filter((t) => !assessed.has(t.id));

  const created: string[] = [];
  const touched = new Set<string>();
  await db.transaction().execute(async (tx) => {
    if (!threats.length) return writeWatermark(tx, organizationId, rows.at(-1)!.processedAt);
    // Set-based: one statement for the threats of the page, one for their links, one for the events.
    const ins = await sql<{ id: string; key: string; inserted: boolean }>`
      INSERT INTO hunt_threats (id, organization_id, canonical_key_type, canonical_key, title, aliases, actor_id, created_at, updated_at)
      SELECT v.id, ${organizationId}, v.type, v.key, v.title, ARRAY(SELECT jsonb_array_elements_text(v.aliases)), v.actor, ${now}, ${now}
      FROM jsonb_to_recordset(${JSON.stringify(threats)}::jsonb) AS v(id uuid, key text, type text, title text, aliases jsonb, actor text)
      ON CONFLICT (organization_id, canonical_key) DO UPDATE
        SET aliases = ARRAY(SELECT DISTINCT unnest(hunt_threats.aliases || EXCLUDED.aliases)),
            actor_id = COALESCE(hunt_threats.actor_id, EXCLUDED.actor_id), updated_at = EXCLUDED.updated_at
      RETURNING id, canonical_key AS key, (xmax = 0) AS inserted`.execute(raw(tx));
    const threatOf = new Map(ins.rows.map((r) => [r.key, r]));
    const pairs = threats.flatMap((t) => byCve.get(t.key)!.map((r) => [threatOf.get(t.key)!.id, r.itemId] as const));
    const linked = await sql<{ threatId: string; itemId: string }>`
      INSERT INTO hunt_threat_items (organization_id, threat_id, item_id, linked_at)
      SELECT ${organizationId}, t, i, ${now} FROM unnest(${pairs.map((p) => p[0])}::uuid[], ${pairs.map((p) => p[1])}::uuid[]) AS x(t, i)
      ON CONFLICT DO NOTHING RETURNING threat_id AS "threatId", item_id AS "itemId"`.execute(raw(tx));
    const linkedBy = new Map<string, string[]>();
    for (const l of linked.rows) linkedBy.set(l.threatId, [...(linkedBy.get(l.threatId) ?? []), l.itemId]);
    // Items linked before and changed since their threat's latest run: revised records.
    const revised = await sql<{ threatId: string; itemId: string }>`
      SELECT l.threat_id AS "threatId", l.item_id AS "itemId"
      FROM hunt_threat_items l
      JOIN intel_items i ON i.id = l.item_id
      JOIN hunt_threats t ON t.id = l.threat_id
      JOIN hunt_threat_runs r ON r.id = t.latest_run_id
      WHERE l.organization_id = ${organizationId} AND l.threat_id = ANY(${pairs.map((p) => p[0])}::uuid[]) AND l.item_id = ANY(${pairs.map((p) => p[1])}::uuid[])
        AND i.updated_at > r.run_at
      ORDER BY l.threat_id, l.item_id`.execute(raw(tx));
    const revisedBy = new Map<string, string[]>();
    for (const l of revised.rows) if (!linked.rows.some((n) => n.threatId === l.threatId && n.itemId === l.itemId)) revisedBy.set(l.threatId, [...(revisedBy.get(l.threatId) ?? []), l.itemId]);
    const events: Array<Record<string, unknown>> = [];
    for (const t of threats) {
      const threat = threatOf.get(t.key)!;
      const items = linkedBy.get(threat.id) ?? [];
      if (threat.inserted) {
        created.push(threat.id);
        events.push({ id: uuidv7(), organization_id: organizationId, threat_id: threat.id, run_id: null, kind: 'threat_created', actor_type: 'system', metadata: { score: 0, hunting: false, canonicalKey: t.key, label: t.label }, created_at: now.toISOString() });
      } else if (items.length) {
        touched.add(threat.id);
        events.push({ id: uuidv7(), organization_id: organizationId, threat_id: threat.id, run_id: null, kind: 'intel_linked', actor_type: 'system', metadata: { score: items.length, hunting: false, canonicalKey: t.key, label: items.join(',') }, created_at: now.toISOString() });
      }
      const revisedItems = threat.inserted ? [] : (revisedBy.get(threat.id) ?? []);
      if (revisedItems.length) {
        touched.add(threat.id);
        events.push({ id: uuidv7(), organization_id: organizationId, threat_id: threat.id, run_id: null, kind: 'intel_revised', actor_type: 'system', metadata: { score: revisedItems.length, hunting: false, canonicalKey: t.key, label: revisedItems.join(',') }, created_at: now.toISOString() });
      }
    }
    await insertEvents(tx, events);
    await writeWatermark(tx, organizationId, rows.at(-1)!.processedAt);
  });
  const updated = [...touched];
  try {
    await assessThreats(db, organizationId, created, { kind: 'create', trigger: 'new_threat', now, events: opts.events });
    await assessThreats(db, organizationId, updated, { kind: 'reassess', trigger: 'new_intel', now, events: opts.events });
  } catch (err) {
    // The page (threats, links, watermark) has committed: the threats this pass did not assess
    // are marked, shown as `assessmentFailedAt`, and assessed again by the next pass.
    await markAssessmentFailed(db, organizationId, [...created, ...updated], now).catch(() => {}); // the assessment's error is the one to report
    throw err;
  }
  return { created: [...all.filter((t) => assessed.has(t.id)).map((t) => t.id), ...created], updated };
}

/** Of these threats, those without a run of this pass (`now`): their assessment failed. */
async function markAssessmentFailed(db: Queryable, organizationId: string, threatIds: string[], now: Date): Promise<void> {
  await sql`
    UPDATE hunt_threats t SET assessment_failed_at = ${now}
    WHERE t.organization_id = ${organizationId} AND t.id = ANY(${threatIds}::uuid[])
      AND (t.latest_run_id IS NULL OR (SELECT r.run_at FROM hunt_threat_runs r WHERE r.id = t.latest_run_id) < ${now})`.execute(db);
}

/** A threat created this long ago without a run was missed by a pass that stopped (a crash) before assessing it. */
const UNASSESSED_AFTER_MS = 5 * 60_000;

/**
 * Threats whose assessment by the intel pass failed (marked) or never ran, assessed again: a
 * create/new_threat run for one that has none, reassess/new_intel otherwise. Success clears
 * the mark (writeAssessment); another failure marks them again for the next tick.
 */
async function retryFailedAssessments(db: Database, organizationId: string, events: EventBus | undefined): Promise<void> {
  const now = new Date();
  const { rows } = await sql<{ id: string; assessed: boolean }>`
    SELECT id, latest_run_id IS NOT NULL AS assessed FROM hunt_threats
    WHERE organization_id = ${organizationId} AND (assessment_failed_at IS NOT NULL OR latest_run_id IS NULL)
      AND (assessment_failed_at IS NOT NULL OR created_at < ${new Date(now.getTime() - UNASSESSED_AFTER_MS)})
    ORDER BY id LIMIT ${PAGE}`.execute(db);
  if (!rows.length) return;
  const never = rows.filter((r) => !r.assessed).map((r) => r.id);
  const again = rows.filter((r) => r.assessed).map((r) => r.id);
  try {
    await assessThreats(db, organizationId, never, { kind: 'create', trigger: 'new_threat', now, events });
    await assessThreats(db, organizationId, again, { kind: 'reassess', trigger: 'new_intel', now, events });
  } catch (err) {
    await markAssessmentFailed(db, organizationId, [...never, ...again], now).catch(() => {});
    throw err;
  }
}

/** A writer's transaction older than this is not waited for (the rule before 2026-11-26: one minute). */
const SETTLE_MAX_MS = 60_000;
/** Tolerance between the clocks of the processes that stamp processed_at (workers on several hosts). */
const CLOCK_TOLERANCE_MS = 1_000;

/**
 * The instant up to which every item's processing has committed: a writer stamps processed_at
 * from its clock after its transaction began (intel's items/ingest.store.ts, results.store.ts), so an
 * item still uncommitted carries a time no earlier than the start of the oldest transaction open
 * now. Reading only up to that instant keeps the watermark from passing an item that commits
 * later with an earlier processed_at (two sync chunks are written at once). The oldest open
 * transaction's age comes from pg_stat_activity (client backends of this database; a duration,
 * so the database's clock does not matter); one older than a minute is not waited for, as before.
 * With the sync's writes a second or so long, the pass follows a running sync a second or two
 * behind instead of a minute.
 */
export async function settledInstant(db: Queryable): Promise<Date> {
  const before = Date.now();
  // A session of another role shows no times (nor state) without pg_read_all_stats: when one
  // exists, its transactions cannot be seen, so the pass waits the whole minute, as before.
  const { rows } = await sql<{ ageMs: number | null; hidden: boolean }>`
    SELECT (EXTRACT(epoch FROM statement_timestamp() - min(xact_start)) * 1000)::float8 AS "ageMs",
           bool_or(state IS NULL) AS hidden
    FROM pg_stat_activity
    WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`.execute(db);
  const age = rows[0]?.hidden ? SETTLE_MAX_MS : Math.max(0, rows[0]?.ageMs ?? 0);
  return new Date(before - Math.min(SETTLE_MAX_MS, age) - CLOCK_TOLERANCE_MS);
}

/** A scheduler tick reads pages of an organization's items for at most this long (ticks are 30 s apart). */
const PASS_BUDGET_MS = 20_000;

/**
 * The scheduler pass: every organization with items processed after its watermark, page after
 * page (a large sync's items are followed as they commit, not one page per tick).
 */
export async function runHuntIntelPass(db: Database, events?: EventBus): Promise<void> {
  const { rows } = await sql<{ organizationId: string }>`
    SELECT o.id AS "organizationId" FROM organizations o LEFT JOIN hunt_settings s ON s.organization_id = o.id
    WHERE EXISTS (SELECT 1 FROM intel_items i WHERE i.organization_id = o.id AND i.processed_at > COALESCE(s.intel_watermark, '-infinity'::timestamptz))`.execute(db);
  const start = Date.now();
  let failure: unknown = null;
  for (const r of rows) {
    for (;;) {
      const page = await syncThreatsFromIntel(db, r.organizationId, { events, settledBefore: await settledInstant(db) });
      if ((!page.created.length && !page.updated.length) || Date.now() - start > PASS_BUDGET_MS) break;
    }
  }
  // After the new pages, and for every organization even if one's retry fails again (the first
  // failure is thrown at the end, for the scheduler's log).
  const { rows: unassessed } = await sql<{ organizationId: string }>`
    SELECT DISTINCT organization_id AS "organizationId" FROM hunt_threats WHERE assessment_failed_at IS NOT NULL OR latest_run_id IS NULL`.execute(db);
  for (const r of unassessed) await retryFailedAssessments(db, r.organizationId, events).catch((err: unknown) => (failure ??= err));
  if (failure) throw failure;
}
