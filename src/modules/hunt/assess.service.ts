import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Database, Queryable } from '../../platform/db/database.js';
import { detectionsOf, indicatorsOf, loadItems, loadThreats, orgInventoryKeys, sightingsOf, softwareByKeys, softwareByPurls, telemetryTypes, type ItemEvidence, type OrgInventoryKeys } from './assess.store.js';
import { assessExposure, bandOf, diffRuns } from './exposure.fns.js';
import type { EventBus } from '../../platform/events.js';
import { huntDedupeKey, huntQualification, type EpssScore } from './hunt-alerts.js';
import { readEpssScores } from '../intel/index.js';
import { combineMatches, keysFor, matchDto, matchProse, matchStructured, cpeProductKeysOf, packageKeysOf, proseProducts, type AdvisoryProduct, type InventorySoftware, type SoftwareMatch } from './matching.fns.js';
import { scoreRelevancy } from './relevancy.fns.js';
import { readAlertSettings } from './settings.repo.js';
import { proposeRules } from './deliverables.store.js';

/**
 * An assessment run over a batch of threats: relevancy (does the org run it?) and exposure (are
 * we hit?), a run row with its diff against the previous run, the threat's denormalized state,
 * activity, rule proposals for found indicators, and the hunt alert decision. `kind`/`trigger`
 * pairs: create/new_threat, reassess/new_intel, reassess/inventory_change,
 * reassess/manual, reassess/schedule, reassess/sighting.
 */
export type RunKind = 'create' | 'reassess';
export type RunTrigger = 'new_threat' | 'new_intel' | 'inventory_change' | 'manual' | 'schedule' | 'sighting';

export interface AssessOptions {
  kind: RunKind;
  trigger: RunTrigger;
  now?: Date;
  /** `threat.alert_qualified` is emitted here; without a bus (or a subscriber), no hunt alert is raised. */
  events?: EventBus;
  actorUserId?: string | null;
}

const BATCH = 500;

export async function assessThreats(db: Database, organizationId: string, threatIds: string[], opts: AssessOptions): Promise<string[]> {
  const runIds: string[] = [];
  const orgKeys = await orgInventoryKeys(db, organizationId);
  const now = opts.now ?? new Date();
  const telemetry = await telemetryTypes(db, organizationId, now);
  const settings = await readAlertSettings(db, organizationId);
  for (let i = 0; i < threatIds.length; i += BATCH) {
    const batch = threatIds.slice(i, i + BATCH);
    await db.transaction().execute(async (tx) => {
      runIds.push(...(await assessBatch(tx, organizationId, batch, { ...opts, now }, orgKeys, telemetry, settings)));
    });
  }
  return runIds;
}

async function assessBatch(
  tx: Queryable,
  organizationId: string,
  threatIds: string[],
  opts: AssessOptions & { now: Date },
  orgKeys: OrgInventoryKeys,
  telemetry: Set<string>,
  settings: Awaited<ReturnType<typeof readAlertSettings>>,
): Promise<string[]> {
  // Lock the threats so two assessments of one threat serialize (each sees the other's run as prev).
  await sql`SELECT id FROM hunt_threats WHERE organization_id = ${organizationId} AND id = ANY(${threatIds}::uuid[]) ORDER BY id FOR UPDATE`.execute(tx);
  const threats = await loadThreats(tx, organizationId, threatIds);
  const gated = settings.minimumEpssProbability !== null || settings.minimumEpssPercentile !== null;
  const epss = gated ? await readEpssScores(tx, organizationId, threats.map((t) => t.canonicalKey)) : new Map<string, EpssScore>();
  // Retracted items (an OSV record withdrawn, a STIX object revoked) are no evidence; a threat
  // whose every item is retracted is retired (withdrawnThreats), not deleted.
  const allItems = await loadItems(tx, organizationId, threatIds);
  const items = allItems.filter((i) => !i.retracted);
  const itemsByThreat = group(items, (i) => i.threatId);
  const withdrawnThreats = new Set(allItems.map((i) => i.threatId).filter((id) => !itemsByThreat.has(id)));

  // The advisories of each threat (prose per item, structured records), the inventory keys and
  // package identities they name, then one software read of each kind for the batch.
  const proseByThreat = new Map<string, ProseAdvisories>();
  const keysByThreat = new Map<string, Set<string>>();
  const purlsByThreat = new Map<string, Set<string>>();
  const cpeKeysByThreat = new Map<string, string[]>();
  const neededKeys = new Set<string>();
  const neededPurls = new Set<string>();
  for (const t of threats) {
    const its = itemsByThreat.get(t.id) ?? [];
    // Prose only where no structured data exists: a record's own text restates its packages.
    // An NVD record is read by its CPE configurations only (evidence `nvd`), not its prose.
    const prose = its.filter((i) => !i.structured).map((i) => ({
      itemId: i.nvdId ?? i.id,
      evidence: i.nvdId ? ('nvd' as const) : ('advisory-text' as const),
      products: i.nvdId ? i.affectedProducts : proseProducts(i.text, i.affectedProducts, orgKeys.productKeys, orgKeys.packageOnlyKeys),
    }));
    proseByThreat.set(t.id, prose);
    const keys = new Set<string>();
    for (const p of prose) for (const a of p.products) for (const k of keysFor(a, orgKeys.productKeys)) keys.add(k), neededKeys.add(k);
    keysByThreat.set(t.id, keys);
    const structured = its.flatMap((i) => (i.structured ? [i.structured] : []));
    // Packages a CSAF document identifies by CPE only are read by their exact product key.
    const cpeKeys = cpeProductKeysOf(structured).filter((k) => orgKeys.productKeys.has(k));
    for (const k of cpeKeys) neededKeys.add(k);
    cpeKeysByThreat.set(t.id, cpeKeys);
    const purls = new Set<string>();
    for (const k of packageKeysOf(structured)) for (const p of orgKeys.purlsByKey.get(k) ?? []) purls.add(p), neededPurls.add(p);
    purlsByThreat.set(t.id, purls);
  }
  // Each threat is matched only against the software of the keys it names (never the batch's whole set).
  const softwareByKey = group(await softwareByKeys(tx, organizationId, [...neededKeys]), (s) => s.productKey);
  const softwareByPurl = group(await softwareByPurls(tx, organizationId, [...neededPurls]), (s) => s.purl ?? '');
  const itemIds = items.map((i) => i.id);
  const indicators = await indicatorsOf(tx, organizationId, itemIds);
  const sightings = await sightingsOf(tx, organizationId, itemIds);
  const detections = await detectionsOf(tx, organizationId, threatIds);
  const threatOfItem = new Map(items.map((i) => [i.id, i.threatId]));
  const indicatorKey = (i: { type: string; normalizedValue: string }) => `${i.type}\u0000${i.normalizedValue}`;
  const indicatorsByThreat = new Map<string, typeof indicators>();
  const keptId = new Map<string, string>();
  for (const ind of indicators) {
    const threatId = threatOfItem.get(ind.itemId);
    if (!threatId) continue;
    const k = `${threatId}\u0000${indicatorKey(ind)}`;
    if (keptId.has(k)) continue;
    keptId.set(k, ind.id);
    const list = indicatorsByThreat.get(threatId) ?? [];
    list.push(ind);
    indicatorsByThreat.set(threatId, list);
  }
  const indicatorById = new Map(indicators.map((i) => [i.id, i]));
  const sightingsByThreat = new Map<string, typeof sightings>();
  for (const s of sightings) {
    const ind = indicatorById.get(s.indicatorId);
    const threatId = ind && threatOfItem.get(ind.itemId);
    if (!ind || !threatId) continue;
    const list = sightingsByThreat.get(threatId) ?? [];
    list.push({ ...s, indicatorId: keptId.get(`${threatId}\u0000${indicatorKey(ind)}`)! });
    sightingsByThreat.set(threatId, list);
  }

  const runs: Array<Record<string, unknown>> = [];
  const updates: Array<Record<string, unknown>> = [];
  const events: Array<Record<string, unknown>> = [];
  const runIds: string[] = [];
  for (const t of threats) {
    const its = itemsByThreat.get(t.id) ?? [];
    const matches = matchThreat(t.id, its, proseByThreat, keysByThreat, purlsByThreat, cpeKeysByThreat, softwareByKey, softwareByPurl);
    const knownExploited = its.some((i) => i.knownExploited);
    const newest = newestOf(its);
    const withdrawn = withdrawnThreats.has(t.id);
    const kev = its.map((i) => i.kev).find((k) => k) ?? null;
    const relevancy = scoreRelevancy({ canonicalKey: t.canonicalKey, matches, knownExploited, newestReportAt: newest, now: opts.now, withdrawn, kev });
    // One indicator per value: the same IP named by three items is one thing to check.
    const threatIndicators = indicatorsByThreat.get(t.id) ?? [];
    const threatSightings = sightingsByThreat.get(t.id) ?? [];
    const runId = uuidv7();
    const exposure = assessExposure({
      runId,
      runAt: opts.now,
      canonicalKey: t.canonicalKey,
      matches,
      knownExploited,
      indicators: threatIndicators,
      sightings: dedupeBy(threatSightings, (s) => `${s.indicatorId}\u0000${s.source}\u0000${s.observedAt.toISOString()}`),
      telemetryTypes: telemetry,
      detections: detections.filter((d) => d.threatId === t.id),
      techniques: [...new Set(its.flatMap((i) => i.techniques))],
      reports: its.map((i) => ({ id: i.id, title: i.title, publishedAt: i.publishedAt })),
    });
    const diff = diffRuns(t.prev, { relevancyScore: relevancy.score, exposureScore: exposure.exposureScore, exposureState: exposure.exposureState, coverageState: exposure.coverageState });
    runIds.push(runId);
    runs.push({
      id: runId, organization_id: organizationId, threat_id: t.id, run_at: opts.now.toISOString(), kind: opts.kind, trigger: opts.trigger,
      relevancy_score: relevancy.score, exposure_score: exposure.exposureScore, relevancy_headline: relevancy.headline,
      relevancy_explanation: relevancy.explanation, exposure_state: exposure.exposureState, coverage_state: exposure.coverageState,
      has_found_ioc: exposure.hasFoundIoc, has_blocking_gap: exposure.hasBlockingGap, exposure_story: exposure.story, diff, matches: matches.map(matchDto),
    });
    updates.push({ id: t.id, rs: relevancy.score, es: exposure.exposureScore, st: exposure.exposureState, cs: exposure.coverageState, run: runId });
    events.push({ id: uuidv7(), organization_id: organizationId, threat_id: t.id, run_id: runId, kind: 'threat_assessed', actor_type: opts.actorUserId ? 'user' : 'system', metadata: { score: relevancy.score, exposureScore: exposure.exposureScore, hunting: exposure.hasFoundIoc, executionId: runId, canonicalKey: t.canonicalKey, label: `${opts.kind}/${opts.trigger}`, ...(opts.actorUserId ? { userId: opts.actorUserId } : {}) }, created_at: opts.now.toISOString() });
    if (t.prev && t.prev.exposureState !== exposure.exposureState) {
      events.push({ id: uuidv7(), organization_id: organizationId, threat_id: t.id, run_id: runId, kind: 'exposure_changed', actor_type: 'system', metadata: { score: exposure.exposureScore, hunting: exposure.hasFoundIoc, executionId: runId, canonicalKey: t.canonicalKey, label: `${t.prev.exposureState} → ${exposure.exposureState}` }, created_at: opts.now.toISOString() });
    }
    // Rule proposals for the indicators this threat has, superseding an older proposal.
    const found = threatIndicators.filter((i) => i.status === 'found' || threatSightings.some((s) => s.indicatorId === i.id));
    const pinned = found.length ? found : [];
    if (pinned.length) events.push(...(await proposeRules(tx, organizationId, t, pinned, its, runId, opts.now)));

    // A dismissed threat raises a hunt alert only on a compromise signal (someone decided it does not matter; being hit still does).
    const qualification = huntQualification(settings, exposure.exposureScore, exposure.exposureState, epss.get(t.canonicalKey));
    const qualifiedBy = t.dismissed && exposure.exposureState !== 'compromise_signal_found' ? null : qualification;
    if (qualifiedBy) {
      // New evidence (a higher score, more indicators seen) or a run that newly qualifies raises
      // again: the alerts side reopens a resolved alert or dedupes into the open one.
      const foundCount = (exposure.story.iocFindings as unknown[]).length;
      const escalated = !t.prev || t.prev.exposureScore < exposure.exposureScore || t.prev.foundIocCount < foundCount || huntQualification(settings, t.prev.exposureScore, t.prev.exposureState, epss.get(t.canonicalKey)) === null;
      if (!t.activeHuntAlertId || escalated) {
        events.push({ id: uuidv7(), organization_id: organizationId, threat_id: t.id, run_id: runId, kind: 'hunt_alert_qualified', actor_type: 'system', metadata: { score: exposure.exposureScore, hunting: exposure.hasFoundIoc, executionId: runId, canonicalKey: t.canonicalKey, label: qualifiedBy }, created_at: opts.now.toISOString() });
        const out = await opts.events?.emit(tx, 'threat.alert_qualified', {
          organizationId, threatId: t.id, runId, huntQualifiedBy: qualifiedBy, dedupeKey: huntDedupeKey(t.id), previousAlertId: t.latestAlertId, severity: bandOf(exposure.exposureScore) ?? 'low',
          title: `${t.canonicalKey}: ${exposure.story.headline as string}`,
          description: [...relevancy.explanation, ...(exposure.story.summary as string[])].join(' '),
        });
        if (out?.alertId) {
          await tx.updateTable('huntThreats').set({ latestAlertId: out.alertId, activeHuntAlertId: out.open ? out.alertId : null }).where('id', '=', t.id).execute();
          if (out.outcome !== 'deduplicated') {
            events.push({ id: uuidv7(), organization_id: organizationId, threat_id: t.id, run_id: runId, kind: `hunt_alert_${out.outcome}`, actor_type: 'system', metadata: { score: exposure.exposureScore, hunting: exposure.hasFoundIoc, executionId: runId, canonicalKey: t.canonicalKey, label: out.alertId }, created_at: opts.now.toISOString() });
          }
        }
      }
    }
  }
  if (runs.length) {
    await sql`
      INSERT INTO hunt_threat_runs (id, organization_id, threat_id, run_at, kind, trigger, relevancy_score, exposure_score, relevancy_headline,
        relevancy_explanation, exposure_state, coverage_state, has_found_ioc, has_blocking_gap, exposure_story, diff, matches)
      SELECT id, organization_id, threat_id, run_at, kind, trigger, relevancy_score, exposure_score, relevancy_headline,
        relevancy_explanation, exposure_state, coverage_state, has_found_ioc, has_blocking_gap, exposure_story, diff, matches
      FROM jsonb_to_recordset(${JSON.stringify(runs)}::jsonb) AS r(id uuid, organization_id uuid, threat_id uuid, run_at timestamptz, kind text,
        trigger text, relevancy_score int, exposure_score int, relevancy_headline text, relevancy_explanation jsonb, exposure_state text,
        coverage_state text, has_found_ioc boolean, has_blocking_gap boolean, exposure_story jsonb, diff jsonb, matches jsonb)`.execute(tx);
    await sql`
      UPDATE hunt_threats t SET relevancy_score = v.rs, exposure_score = v.es, exposure_state = v.st, coverage_state = v.cs,
        latest_run_id = v.run, assessment_failed_at = NULL, updated_at = ${opts.now}
      FROM jsonb_to_recordset(${JSON.stringify(updates)}::jsonb) AS v(id uuid, rs int, es int, st text, cs text, run uuid)
      WHERE t.id = v.id AND t.organization_id = ${organizationId}`.execute(tx);
  }
  await insertEvents(tx, events);
  return runIds;
}

export async function insertEvents(tx: Queryable, events: Array<Record<string, unknown>>): Promise<void> {
  if (!events.length) return;
  await sql`
    INSERT INTO hunt_activity_events (id, organization_id, threat_id, run_id, kind, actor_type, metadata, created_at)
    SELECT id, organization_id, threat_id, run_id, kind, actor_type, metadata, created_at
    FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb) AS e(id uuid, organization_id uuid, threat_id uuid, run_id uuid, kind text, actor_type text, metadata jsonb, created_at timestamptz)`.execute(tx);
}

type ProseAdvisories = Array<{ itemId: string; evidence: 'nvd' | 'advisory-text'; products: AdvisoryProduct[] }>;

/** A threat's matches: structured records against its packages, prose against its product keys, combined (matching.fns.ts). */
function matchThreat(
  threatId: string,
  items: ItemEvidence[],
  proseByThreat: Map<string, ProseAdvisories>,
  keysByThreat: Map<string, Set<string>>,
  purlsByThreat: Map<string, Set<string>>,
  cpeKeysByThreat: Map<string, string[]>,
  softwareByKey: Map<string, InventorySoftware[]>,
  softwareByPurl: Map<string, InventorySoftware[]>,
): SoftwareMatch[] {
  const packages = [
    ...[...(purlsByThreat.get(threatId) ?? [])].flatMap((p) => softwareByPurl.get(p) ?? []),
    ...(cpeKeysByThreat.get(threatId) ?? []).flatMap((k) => softwareByKey.get(k) ?? []),
  ];
  const structured = matchStructured(items.flatMap((i) => (i.structured ? [i.structured] : [])), packages);
  const candidates = [...(keysByThreat.get(threatId) ?? [])].flatMap((k) => softwareByKey.get(k) ?? []);
  const prose = (proseByThreat.get(threatId) ?? []).flatMap((p) => matchProse(p.products, candidates, p.itemId, p.evidence));
  return combineMatches(structured, prose);
}

function group<T>(list: T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of list) {
    const k = key(x);
    const l = m.get(k);
    if (l) l.push(x);
    else m.set(k, [x]);
  }
  return m;
}

function dedupeBy<T>(list: T[], key: (t: T) => string): T[] {
  const m = new Map<string, T>();
  for (const x of list) if (!m.has(key(x))) m.set(key(x), x);
  return [...m.values()];
}

function newestOf(items: ItemEvidence[]): Date | null {
  let best: Date | null = null;
  for (const i of items) if (i.publishedAt && (!best || i.publishedAt > best)) best = i.publishedAt;
  return best;
}
