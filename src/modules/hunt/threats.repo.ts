import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import { iso } from '../../platform/time.js';
import { RELEVANT_AT } from './relevancy.fns.js';
import { containsPattern } from '../../platform/db/like.js';
import { classificationSummary } from '../intel/index.js';

/** Reads of the threat views: each a single indexed query by threat id within the organization. */

// The CVE's EPSS score (intel's `epss` source), by primary key.
const EPSS_SQL = sql<{ probability: number; percentile: number; modelVersion: string | null; scoreDate: string | null } | null>`(SELECT jsonb_build_object('probability', e.epss, 'percentile', e.percentile,
  'modelVersion', e.model_version, 'scoreDate', e.score_date::text) FROM intel_epss_scores e WHERE e.organization_id = t.organization_id AND e.cve = t.canonical_key)`;
export type ThreatRow = Awaited<ReturnType<typeof findThreatRow>> & object;

// The threat's own CVE in CISA's KEV catalog: a linked `cisa_kev` item whose record is that CVE
// (another CVE's entry, linked because its text names this one, does not count).
const KEV_ITEM_JOIN = sql`hunt_threat_items l JOIN intel_items i ON i.id = l.item_id`;
const KEV_ITEM_WHERE = sql`l.threat_id = t.id AND i.vulnerability->>'format' = 'cisa_kev' AND upper(i.vulnerability->>'id') = t.canonical_key AND i.status <> 'retracted'`;
const KEV_ITEM_SQL = sql`FROM ${KEV_ITEM_JOIN} WHERE ${KEV_ITEM_WHERE}`;
// The entry's listing is in intel's vulnerability store (migration 0159: the item's copy names the
// CVE only), read by primary key; an item stored before the store has it in its own copy.
const KEV_SQL = sql<{ dateAdded: string | null; dueDate: string | null; ransomware: boolean } | null>`(SELECT jsonb_build_object('dateAdded', k.exploited->>'dateAdded',
  'dueDate', k.exploited->>'dueDate', 'ransomware', COALESCE((k.exploited->>'knownRansomwareUse')::boolean, false))
  FROM ${KEV_ITEM_JOIN}
  CROSS JOIN LATERAL (SELECT COALESCE((SELECT v.exploited::jsonb FROM intel_vulnerabilities v
    WHERE v.organization_id = i.organization_id AND v.source_id = i.source_id AND v.vuln_id = i.external_id), i.vulnerability->'exploited') AS exploited) k
  WHERE ${KEV_ITEM_WHERE} ORDER BY k.exploited->>'dateAdded' NULLS LAST, i.id LIMIT 1)`;

const STATUS_SQL = sql<string>`CASE WHEN t.dismissed_at IS NOT NULL THEN 'dismissed' WHEN t.latest_run_id IS NULL THEN 'new'
  WHEN t.relevancy_score >= ${RELEVANT_AT} OR t.exposure_state IN ('vulnerable_software_present', 'compromise_signal_found') THEN 'relevant' ELSE 'not_relevant' END`;

export async function findThreatRow(db: Queryable, organizationId: string, id: string) {
  return db.selectFrom('huntThreats as t').selectAll().select(STATUS_SQL.as('status')).select(EPSS_SQL.as('epss')).select(KEV_SQL.as('knownExploited'))
    .select(sql<string[]>`ARRAY(SELECT item_id::text FROM hunt_threat_items l WHERE l.threat_id = t.id ORDER BY l.linked_at, l.item_id)`.as('intelItemIds'))
    .where('t.organizationId', '=', organizationId).where('t.id', '=', id).executeTakeFirst();
}

export async function listThreatRows(db: Queryable, organizationId: string, f: { limit: number; offset: number; status?: string; minRelevancy?: number; minEpss?: number; exposureState?: string; search?: string; knownExploited?: boolean }) {
  let q = db.selectFrom('huntThreats as t').where('t.organizationId', '=', organizationId);
  if (f.knownExploited !== undefined) q = q.where(f.knownExploited ? sql<boolean>`EXISTS (SELECT 1 ${KEV_ITEM_SQL})` : sql<boolean>`NOT EXISTS (SELECT 1 ${KEV_ITEM_SQL})`);
  if (f.status) q = q.where(sql<boolean>`${STATUS_SQL} = ${f.status}`);
  if (f.minRelevancy !== undefined) q = q.where('t.relevancyScore', '>=', f.minRelevancy);
  if (f.exposureState) q = q.where('t.exposureState', '=', f.exposureState);
  if (f.minEpss !== undefined) q = q.where(sql<boolean>`EXISTS (SELECT 1 FROM intel_epss_scores e WHERE e.organization_id = t.organization_id AND e.cve = t.canonical_key AND e.epss >= ${f.minEpss})`);
  if (f.search) {
    const like = containsPattern(f.search);
    q = q.where(sql<boolean>`(t.canonical_key ILIKE ${like} OR t.title ILIKE ${like} OR EXISTS (SELECT 1 FROM unnest(t.aliases) a WHERE a ILIKE ${like}))`);
  }
  const [rows, count] = await Promise.all([
    q.selectAll().select(STATUS_SQL.as('status')).select(EPSS_SQL.as('epss')).select(KEV_SQL.as('knownExploited'))
      .select(sql<string[]>`ARRAY(SELECT item_id::text FROM hunt_threat_items l WHERE l.threat_id = t.id ORDER BY l.linked_at, l.item_id)`.as('intelItemIds'))
      .orderBy('t.relevancyScore', 'desc').orderBy('t.exposureScore', 'desc').orderBy('t.id', 'desc').limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, totalCount: Number(count.n) };
}

export function threatDto(r: NonNullable<ThreatRow>) {
  return {
    id: r.id, organizationId: r.organizationId, canonicalType: r.canonicalType, canonicalKeyType: r.canonicalKeyType, canonicalKey: r.canonicalKey, title: r.title,
    aliases: r.aliases, actorId: r.actorId, intelItemIds: r.intelItemIds, relevancyScore: r.relevancyScore, exposureScore: r.exposureScore,
    exposureState: r.exposureState as never, coverageState: r.coverageState as never, detectionEngineeringNote: r.detectionEngineeringNote,
    latestRunId: r.latestRunId, assessmentRunningExecutionId: r.assessmentRunningExecutionId, latestAlertId: r.latestAlertId, activeHuntAlertId: r.activeHuntAlertId,
    assessmentFailedAt: iso(r.assessmentFailedAt), dismissedAt: iso(r.dismissedAt), dismissedByUserId: r.dismissedByUserId, dismissedReason: r.dismissedReason,
    status: r.status as never, epss: r.epss, knownExploited: r.knownExploited, createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt),
  };
}

export async function runsOf(db: Queryable, threatId: string, limit = 20) {
  const rows = await db.selectFrom('huntThreatRuns').selectAll().where('threatId', '=', threatId).orderBy('runAt', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => ({
    id: r.id, threatId: r.threatId, runAt: iso(r.runAt), relevancyExecutionId: r.relevancyExecutionId, exposureExecutionId: r.exposureExecutionId,
    relevancyHeadline: r.relevancyHeadline, kind: r.kind, trigger: r.trigger, relevancyScore: r.relevancyScore, exposureScore: r.exposureScore,
    relevancyExplanation: r.relevancyExplanation, exposureState: r.exposureState, coverageState: r.coverageState, hasFoundIoc: r.hasFoundIoc,
    hasBlockingGap: r.hasBlockingGap, exposureStory: r.exposureStory, diff: r.diff,
  }));
}

/** The machine-readable matches of the threat's latest run (sorted when the run was written). */
export async function latestMatchesOf(db: Queryable, latestRunId: string | null): Promise<unknown[]> {
  if (!latestRunId) return [];
  const r = await db.selectFrom('huntThreatRuns').select('matches').where('id', '=', latestRunId).executeTakeFirst();
  return Array.isArray(r?.matches) ? r.matches : [];
}

export async function deliverablesOf(db: Queryable, threatId: string) {
  const rows = await db.selectFrom('huntDeliverables').selectAll().where('threatId', '=', threatId).orderBy('createdAt', 'desc').orderBy('id', 'desc').execute();
  return rows.map(deliverableDto);
}

export function deliverableDto(r: { id: string; organizationId: string; threatId: string; executionId: string | null; createdAt: Date; supersededById: string | null; proposalId: string | null; pullRequestUrl: string | null; intent: string; targetProduct: string; targetLogSource: string; kind: string; pinning: string; pinnedIocs: Array<{ type: string; value: string }>; lifecycleStatus: string; content: string }) {
  return {
    id: r.id, organizationId: r.organizationId, threatId: r.threatId, executionId: r.executionId, createdAt: iso(r.createdAt), supersededById: r.supersededById,
    proposalId: r.proposalId, pullRequestUrl: r.pullRequestUrl, intent: r.intent, targetProduct: r.targetProduct, targetLogSource: r.targetLogSource,
    kind: r.kind, pinning: r.pinning, pinnedIocs: r.pinnedIocs, lifecycleStatus: r.lifecycleStatus as never, content: r.content,
  };
}

export async function eventsOf(db: Queryable, threatId: string) {
  const rows = await db.selectFrom('huntActivityEvents').selectAll().where('threatId', '=', threatId).orderBy('createdAt').orderBy('id').limit(200).execute();
  return rows.map((r) => ({ id: r.id, threatId: r.threatId, runId: r.runId, createdAt: iso(r.createdAt), kind: r.kind, actorType: r.actorType, metadata: r.metadata }));
}

export async function itemSummariesOf(db: Queryable, threatId: string) {
  const { rows } = await sql<{ id: string; title: string; publisher: string | null; url: string | null; publishedAt: Date | null; tldr: string; sourceName: string; summary: string; attackPath: string[]; classification: unknown; platforms: string[]; affectedProducts: Array<{ vendor?: string; product?: string; versions?: string[] }>; firstSeen: string | null; lastSeen: string | null }>`
    SELECT i.id, i.title, i.publisher, i.url, i.published_at AS "publishedAt", i.tldr, s.display_name AS "sourceName", i.summary, i.attack_path AS "attackPath",
           i.classification, i.platforms, i.affected_products AS "affectedProducts",
           (SELECT min(first_seen) FROM intel_indicators x WHERE x.item_id = i.id)::text AS "firstSeen",
           (SELECT max(last_seen) FROM intel_indicators x WHERE x.item_id = i.id)::text AS "lastSeen"
    FROM hunt_threat_items l JOIN intel_items i ON i.id = l.item_id JOIN intel_sources s ON s.id = i.source_id
    WHERE l.threat_id = ${threatId} ORDER BY i.published_at DESC NULLS LAST, i.id`.execute(db);
  return rows.map((r) => {
    const c = classificationSummary(r.classification);
    const published = iso(r.publishedAt);
    return {
      id: r.id, title: r.title, publisher: r.publisher, url: r.url, publishedAt: published, tldr: r.tldr, sourceName: r.sourceName, summary: r.summary,
      eventFirstSeen: r.firstSeen ? new Date(r.firstSeen).toISOString() : published, eventLastSeen: r.lastSeen ? new Date(r.lastSeen).toISOString() : published,
      attackPath: Array.isArray(r.attackPath) ? r.attackPath : [], malware: c.malware, actors: c.actors, platforms: r.platforms,
      attackTechniques: c.techniques,
      affectedProducts: (Array.isArray(r.affectedProducts) ? r.affectedProducts : []).map((p) => ({ name: [p.vendor, p.product].filter(Boolean).join(' '), versions: p.versions ?? [] })),
    };
  });
}
