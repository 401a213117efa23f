import { sql } from 'kysely';
import { uuidv7 } from './ids.fns.js';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { EventBus } from '../../platform/events.js';
import { readEpssScores } from '../intel/index.js';
import { completeStoredRanges, detectionsOf, indicatorsOf, loadItems, loadItemsOf, loadThreats, raw, type ItemEvidence, type ThreatForAssessment, orgInventoryKeys, sightingsOf, softwareByKeys, softwareByPackageKeys, telemetryTypes } from './assess.store.js';
import { packageKeysOf } from './matching.fns.js';
import { purlKey } from './identity.fns.js';
import { advisoriesOf, group, planAssessment, type AssessmentPlan, type PlannedActivity, type RunKind, type RunTrigger } from './assess.fns.js';
import type { EpssScore } from './hunt-alerts.js';
import { readAlertSettings } from './settings.repo.js';
import { proposeRules } from './deliverables.store.js';

export type { RunKind, RunTrigger } from './assess.fns.js';

export interface AssessOptions {
  kind: RunKind;
  trigger: RunTrigger;
  now?: Date;
  /** `threat.alert_qualified` is emitted here; without a bus (or a subscriber), no hunt alert is raised. */
  events?: EventBus;
  actorUserId?: string | null;
}

const BATCH = 500;
const BATCHES_IN_FLIGHT = 2;

/** What every batch of one pass shares: read once per pass, not per batch. */
interface Pass {
  organizationId: string;
  opts: AssessOptions & { now: Date };
  /** The organization's product keys, read once and only for a batch with prose to match (or
   * CSAF products named by CPE only): structured records read just the packages they name. */
  orgKeys: () => ReturnType<typeof orgInventoryKeys>;
  telemetry: Set<string>;
  settings: Awaited<ReturnType<typeof readAlertSettings>>;
}

async function openPass(db: Database, organizationId: string, opts: AssessOptions): Promise<Pass> {
  let keys: ReturnType<typeof orgInventoryKeys> | null = null;
  const now = opts.now ?? new Date();
  return {
    organizationId,
    opts: { ...opts, now },
    orgKeys: () => (keys ??= orgInventoryKeys(db, organizationId)),
    telemetry: await telemetryTypes(db, organizationId, now),
    settings: await readAlertSettings(db, organizationId),
  };
}

/**
 * An assessment run over threats, in batches of 500 (one transaction each, two at a time): the evidence read in
 * a handful of set-based queries (assess.store.ts), the decisions planned without I/O
 * (`planAssessment`, assess.fns.ts), and the plan written by one writer (`writeAssessment`).
 * `kind`/`trigger` pairs: create/new_threat, reassess/new_intel, reassess/inventory_change,
 * reassess/manual, reassess/schedule, reassess/sighting.
 */
export async function assessThreats(db: Database, organizationId: string, threatIds: string[], opts: AssessOptions): Promise<string[]> {
  if (threatIds.length === 0) return [];
  const pass = await openPass(db, organizationId, opts);
  const ids = [...new Set(threatIds)];
  const batches: string[][] = [];
  for (let i = 0; i < ids.length; i += BATCH) batches.push(ids.slice(i, i + BATCH));
  // BATCHES_IN_FLIGHT batches at once, each in its own transaction on distinct threats: one is
  // planned in Node while another's statements run in PostgreSQL (serially, each waited for the
  // other: a page of new threats spent half its time with Node idle). A failure stops the others
  // from taking a new batch; the batches already committed stay, as before.
  const outcomes = await inFlight(batches, (batch) => db.transaction().execute((tx) => assessBatch(tx, pass, batch)));
  const rejected = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (rejected) throw rejected.reason;
  return outcomes.flatMap((o) => (o.status === 'fulfilled' ? o.value : []));
}

/** Each batch's outcome, in order; after a failure no new batch starts (those are left out). */
async function inFlight<T, R>(batches: T[], run: (batch: T) => Promise<R>): Promise<Array<PromiseSettledResult<R>>> {
  const out: Array<PromiseSettledResult<R>> = [];
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < batches.length) {
      const k = next++;
      try {
        out[k] = { status: 'fulfilled', value: await run(batches[k]!) };
      } catch (err) {
        failed = true;
        out[k] = { status: 'rejected', reason: err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCHES_IN_FLIGHT, batches.length) }, worker));
  return out.filter((o) => o !== undefined);
}

/** A threat a pass is about to create (threats.sync.ts), with the items it links. */
export interface NewThreat {
  id: string;
  key: string;
  type: string;
  title: string;
  aliases: string[];
  actor: string | null;
  /** Its `threat_created` entry's label. */
  label: string;
  itemIds: string[];
}

/**
 * New threats created already assessed: per batch of 500 (one transaction each, two at a time),
 * the create/new_threat run is planned from the page's items first, then the threats are
 * inserted with their run's state in one statement (an insert and then an UPDATE with the run
 * wrote every threat twice, the second not HOT: its columns are indexed), with their links,
 * runs and activity (`threat_created` first) one statement each. The rows are those
 * syncThreatsFromIntel and assessThreats write, but ids and times. Returns the threats created;
 * a batch that failed or met a key created meanwhile is rolled back and left to the caller's
 * two-step path (which marks a failing assessment for the retry, as before).
 */
export async function createAssessedThreats(db: Database, organizationId: string, fresh: NewThreat[], opts: AssessOptions): Promise<string[]> {
  if (fresh.length === 0) return [];
  const pass = await openPass(db, organizationId, opts);
  const batches: NewThreat[][] = [];
  for (let i = 0; i < fresh.length; i += BATCH) batches.push(fresh.slice(i, i + BATCH));
  const outcomes = await inFlight(batches, (batch) => db.transaction().execute((tx) => createBatch(tx, pass, batch)));
  return outcomes.flatMap((o) => (o.status === 'fulfilled' ? o.value : []));
}

async function createBatch(tx: Queryable, pass: Pass, batch: NewThreat[]): Promise<string[]> {
  const { organizationId, opts: { now } } = pass;
  // Made before the runs' ids: a threat's activity lists `threat_created` first (created_at, id).
  const created = batch.map((t) => ({ id: uuidv7(), organization_id: organizationId, threat_id: t.id, run_id: null, kind: 'threat_created', actor_type: 'system', metadata: { score: 0, hunting: false, canonicalKey: t.key, label: t.label }, created_at: now.toISOString() }));
  const threats: ThreatForAssessment[] = batch.map((t) => ({ id: t.id, canonicalKey: t.key, title: t.title, latestRunId: null, activeHuntAlertId: null, latestAlertId: null, dismissed: false, prev: null }));
  const pairs = batch.flatMap((t) => t.itemIds.map((i) => [t.id, i] as const));
  // No deliverable can name a threat not yet written.
  const plan = await planBatch(tx, pass, threats, await loadItemsOf(tx, organizationId, pairs), async () => []);
  const state = new Map(plan.updates.map((u) => [u.id, u]));
  const rows = batch.map((t) => ({ ...t, ...state.get(t.id)! }));
  const ins = await sql<{ id: string }>`
    INSERT INTO hunt_threats (id, organization_id, canonical_key_type, canonical_key, title, aliases, actor_id, relevancy_score, exposure_score, exposure_state, coverage_state, latest_run_id, created_at, updated_at)
    SELECT v.id, ${organizationId}, v.type, v.key, v.title, ARRAY(SELECT jsonb_array_elements_text(v.aliases)), v.actor, v.rs, v.es, v.st, v.cs, v.run, ${now}, ${now}
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(id uuid, key text, type text, title text, aliases jsonb, actor text, rs int, es int, st text, cs text, run uuid)
    ON CONFLICT (organization_id, canonical_key) DO NOTHING
    RETURNING id`.execute(raw(tx));
  // Another pass created one of these keys meanwhile: the batch goes the two-step way (its links, its reassessment).
  if (ins.rows.length !== batch.length) throw new Error('a threat of the batch exists already');
  await sql`
    INSERT INTO hunt_threat_items (organization_id, threat_id, item_id, linked_at)
    SELECT ${organizationId}, t, i, ${now} FROM unnest(${pairs.map((p) => p[0])}::uuid[], ${pairs.map((p) => p[1])}::uuid[]) AS x(t, i)
    ON CONFLICT DO NOTHING`.execute(tx);
  await writeAssessment(tx, pass, plan, { inserted: true, leading: created });
  return batch.map((t) => t.id);
}

async function assessBatch(tx: Queryable, pass: Pass, threatIds: string[]): Promise<string[]> {
  const { organizationId } = pass;
  // Lock the threats so two assessments of one threat serialize (each sees the other's run as prev).
  await sql`SELECT id FROM hunt_threats WHERE organization_id = ${organizationId} AND id = ANY(${threatIds}::uuid[]) ORDER BY id FOR UPDATE`.execute(tx);
  const threats = await loadThreats(tx, organizationId, threatIds);
  const plan = await planBatch(tx, pass, threats, await loadItems(tx, organizationId, threatIds), () => detectionsOf(tx, organizationId, threatIds));
  await writeAssessment(tx, pass, plan);
  return plan.runs.map((r) => r.id);
}

/** The evidence of a batch's threats read (but their items, given), and their runs planned. */
async function planBatch(
  tx: Queryable,
  { organizationId, opts, orgKeys, telemetry, settings }: Pass,
  threats: ThreatForAssessment[],
  allItems: ItemEvidence[],
  detections: () => Promise<Awaited<ReturnType<typeof detectionsOf>>>,
): Promise<AssessmentPlan> {
  const gated = settings.minimumEpssProbability !== null || settings.minimumEpssPercentile !== null;
  const epss = gated ? await readEpssScores(tx, organizationId, threats.map((t) => t.canonicalKey)) : new Map<string, EpssScore>();
  // Retracted items (an OSV record withdrawn, a STIX object revoked) are no evidence; a threat
  // whose every item is retracted is retired (withdrawnThreats), not deleted.
  const items = allItems.filter((i) => !i.retracted);
  const itemsByThreat = group(items, (i) => i.threatId);
  const withdrawnThreats = new Set(allItems.map((i) => i.threatId).filter((id) => !itemsByThreat.has(id)));
  // Each threat is matched only against the software of the keys it names (never the batch's
  // whole set): one software read of each kind for the batch. The packages structured records
  // name are an index lookup (softwareByPackageKeys); the organization's product keys are read
  // only when the batch has prose or CPE-only products to match.
  const structured = items.flatMap((i) => (i.structured ? [i.structured] : []));
  // An OSV record's ranges are read from the vulnerability store for the records an asset can match.
  await completeStoredRanges(tx, organizationId, items, null);
  const packages = await softwareByPackageKeys(tx, organizationId, packageKeysOf(structured));
  await completeStoredRanges(tx, organizationId, items, packages);
  const purlsByKey = new Map<string, string[]>();
  for (const [k, list] of group(packages, (p) => purlKey(p.purl)!)) purlsByKey.set(k, [...new Set(list.map((p) => p.purl!))]);
  const needsOrgKeys = items.some((i) => !i.structured) || structured.some((a) => a.packages.some((p) => (!p.purl && p.cpe) || p.platform));
  const inventory = needsOrgKeys ? { ...(await orgKeys()), purlsByKey } : { productKeys: new Set<string>(), packageOnlyKeys: new Set<string>(), purlsByKey };
  const advisories = advisoriesOf(threats, itemsByThreat, inventory);
  const softwareByKey = group(await softwareByKeys(tx, organizationId, [...advisories.neededKeys]), (s) => s.productKey);
  const softwareByPurl = group(packages, (s) => s.purl!);
  const itemIds = items.map((i) => i.id);
  return planAssessment({
    organizationId,
    kind: opts.kind,
    trigger: opts.trigger,
    now: opts.now,
    actorUserId: opts.actorUserId ?? null,
    threats,
    items,
    itemsByThreat,
    withdrawnThreats,
    advisories,
    softwareByKey,
    softwareByPurl,
    indicators: await indicatorsOf(tx, organizationId, itemIds),
    sightings: await sightingsOf(tx, organizationId, itemIds),
    detections: await detections(),
    telemetry,
    settings,
    epss,
    newId: uuidv7,
  });
}

/**
 * Writes a plan: per threat, in order, its activity, its rule proposal and its hunt alert
 * (`threat.alert_qualified`, whose subscriber answers which alert it raised, noted on the
 * threat); then the runs, the threats' state and every activity entry in one statement each.
 */
async function writeAssessment(tx: Queryable, { organizationId, opts }: Pass, plan: AssessmentPlan, fresh?: { inserted: true; leading: Array<Record<string, unknown>> }): Promise<void> {
  const { now } = opts;
  const row = (a: PlannedActivity) => ({ id: uuidv7(), organization_id: organizationId, threat_id: a.threatId, run_id: a.runId, kind: a.kind, actor_type: a.actorType, metadata: a.metadata, created_at: now.toISOString() });
  const eventsOf = group(plan.events, (e) => e.threatId);
  const proposalOf = new Map(plan.proposals.map((p) => [p.threat.id, p]));
  const alertOf = new Map(plan.alerts.map((a) => [a.threatId, a]));
  const recessionOf = new Map(plan.recessions.map((r) => [r.threatId, r]));
  // Ids in the order things happened: a threat's activity is listed by (created_at, id).
  const activity: Array<Record<string, unknown>> = [...(fresh?.leading ?? [])];
  for (const run of plan.runs) {
    const threatId = run.threat_id;
    activity.push(...(eventsOf.get(threatId) ?? []).map(row));
    const proposal = proposalOf.get(threatId);
    if (proposal) activity.push(...(await proposeRules(tx, organizationId, proposal.threat, proposal.found, proposal.items, proposal.runId, now)));
    const recession = recessionOf.get(threatId);
    if (recession) {
      const out = await opts.events?.emit(tx, 'threat.alert_receded', recession.input);
      if (out?.outcome === 'resolved') await tx.updateTable('huntThreats').set({ activeHuntAlertId: null }).where('id', '=', threatId).execute();
      if (out && out.outcome !== 'unchanged') activity.push(row(recession.activity));
    }
    const alert = alertOf.get(threatId);
    if (!alert) continue;
    activity.push(row(alert.activity));
    const out = await opts.events?.emit(tx, 'threat.alert_qualified', alert.input);
    if (!out?.alertId) continue;
    await tx.updateTable('huntThreats').set({ latestAlertId: out.alertId, activeHuntAlertId: out.open ? out.alertId : null }).where('id', '=', threatId).execute();
    if (out.outcome !== 'deduplicated') activity.push(row({ ...alert.activity, kind: `hunt_alert_${out.outcome}`, metadata: { ...alert.activity.metadata, label: out.alertId } }));
  }
  if (plan.runs.length) {
    await sql`
      INSERT INTO hunt_threat_runs (id, organization_id, threat_id, run_at, kind, trigger, relevancy_score, exposure_score, relevancy_headline,
        relevancy_explanation, exposure_state, coverage_state, has_found_ioc, has_blocking_gap, exposure_story, diff, matches)
      SELECT id, organization_id, threat_id, run_at, kind, trigger, relevancy_score, exposure_score, relevancy_headline,
        relevancy_explanation, exposure_state, coverage_state, has_found_ioc, has_blocking_gap, exposure_story, diff, matches
      FROM jsonb_to_recordset(${JSON.stringify(plan.runs)}::jsonb) AS r(id uuid, organization_id uuid, threat_id uuid, run_at timestamptz, kind text,
        trigger text, relevancy_score int, exposure_score int, relevancy_headline text, relevancy_explanation jsonb, exposure_state text,
        coverage_state text, has_found_ioc boolean, has_blocking_gap boolean, exposure_story jsonb, diff jsonb, matches jsonb)`.execute(tx);
    // New threats were inserted with this state (createBatch).
    if (!fresh) await sql`
      UPDATE hunt_threats t SET relevancy_score = v.rs, exposure_score = v.es, exposure_state = v.st, coverage_state = v.cs,
        latest_run_id = v.run, assessment_failed_at = NULL, updated_at = ${now}
      FROM json_to_recordset(${JSON.stringify(plan.updates)}::json) AS v(id uuid, rs int, es int, st text, cs text, run uuid)
      WHERE t.id = v.id AND t.organization_id = ${organizationId}`.execute(tx);
  }
  await insertEvents(tx, activity);
}

export async function insertEvents(tx: Queryable, events: Array<Record<string, unknown>>): Promise<void> {
  if (!events.length) return;
  await sql`
    INSERT INTO hunt_activity_events (id, organization_id, threat_id, run_id, kind, actor_type, metadata, created_at)
    SELECT id, organization_id, threat_id, run_id, kind, actor_type, metadata, created_at
    FROM json_to_recordset(${JSON.stringify(events)}::json) AS e(id uuid, organization_id uuid, threat_id uuid, run_id uuid, kind text, actor_type text, metadata jsonb, created_at timestamptz)`.execute(tx);
}
