import { uuidv7 } from 'uuidv7';
import type { Database, Queryable } from '../../platform/db/database.js';
import { defineJob, type JobDefinition } from '../../platform/jobs/catalog.js';
import type { WorkerDeps } from '../../platform/module.js';
import { CorrelationWindow, eventTime, raiseDetectionMatch, type CorrelationHit } from '../alerts/index.js';
import type { AlertDeps } from '../alerts/index.js';
import { attackOf, ruleKeyOf, severityOf, type BatchMatches, type CorrelationFeed, type DetectionSet, type LoadedDetection } from './detect-match.fns.js';
import { createCompiledDetections, type CompiledDetections } from './compiled-detections.js';
import { claimBatches, countMatches, deleteWindow, keepSamples, loadWindows, lockCorrelation, organizationOfBatch, saveWindow, type ClaimedBatch, type WindowEntries } from './detect.repo.js';
import { drainEventsJob, matchEventsJob } from './detect.job-def.js';

/** Matched events an alert carries (the first ones of the batch); the count says how many there were. */
const EVIDENCE_PER_ALERT = 10;
/** Events of one batch added to a detection's sample. */
const SAMPLE_PER_BATCH = 5;

function attackFor(loaded: LoadedDetection, tags: string[]) {
  const own = attackOf(tags);
  return {
    techniques: [...new Set([...own.techniques, ...loaded.detection.attackTechniques])].sort(),
    tactics: [...new Set([...own.tactics, ...loaded.detection.attackTactics])],
  };
}

/**
 * What one claim takes (and one transaction commits): up to 16 batches, and no more batches once
 * 1,000 events are in (a batch is never split). Bigger claims pay the per-claim costs (transaction,
 * detections fingerprint, match counts and evidence statements) less often, but every batch of a
 * claim waits for the whole claim's commit: at ~0.2 ms of work per event, 1,000 events keep that
 * wait near 200 ms on a quiet machine (docs/performance-history.md, "drain").
 */
export const CLAIM_LIMITS = { maxBatches: 16, maxEvents: 1_000 } as const;

export interface DrainReport {
  batches: number;
  matched: number;
  alerts: number;
}

/** What a drain tells its observer after each committed claim (the bench times batches with it). */
export type ClaimObserver = (claimed: Array<{ id: string; receivedAt: Date; firstEvent: Record<string, unknown> | undefined }>, times: { startedAt: number; committedAt: number }) => void;

/**
 * An organization's waiting batches, drained: claimed a few at a time (`CLAIM_LIMITS`) until none remain.
 * Each claim is one transaction: the batches read and deleted by one statement (claimBatches), then
 * matched (CPU only) and their alerts, correlation windows, match counts and evidence written. A
 * crash rolls the claim back whole: its batches are waiting again, and nothing of them was written,
 * so a retry matches each batch exactly once. The detections are compiled before a claim, never
 * while its rows are locked.
 */
export async function drainOrganization(
  db: Database,
  compiled: CompiledDetections,
  deps: AlertDeps,
  organizationId: string,
  opts: { signal?: AbortSignal; onClaim?: ClaimObserver } = {},
): Promise<DrainReport> {
  const total: DrainReport = { batches: 0, matched: 0, alerts: 0 };
  for (;;) {
    opts.signal?.throwIfAborted();
    const set = await compiled.forOrganization(db, organizationId);
    const claimed: ClaimedBatch[] = [];
    const startedAt = Date.now();
    const r = await db.transaction().execute(async (tx) => {
      claimed.push(...(await claimBatches(tx, organizationId, CLAIM_LIMITS)));
      return claimed.length ? matchClaimed(tx, set, deps, organizationId, claimed) : null;
    });
    if (!r) return total;
    opts.onClaim?.(claimed.map((b) => ({ id: b.id, receivedAt: b.receivedAt, firstEvent: b.events[0]?.event })), { startedAt, committedAt: Date.now() });
    total.batches += claimed.length;
    total.matched += r.matched;
    total.alerts += r.alerts;
  }
}

/**
 * The claimed batches, each matched on its own (an alert per rule and batch, as a shipper's batch is
 * the unit a duplicate counts), their correlation feeds advanced batch by batch (events without a
 * time of their own take their batch's arrival), and the match counts and evidence of the whole
 * claim written once.
 */
async function matchClaimed(tx: Queryable, set: DetectionSet, deps: AlertDeps, orgId: string, batches: ClaimedBatch[]): Promise<{ matched: number; alerts: number }> {
  let alerts = 0;
  let matched = 0;
  const counts = new Map<string, number>();
  const evidence: EvidenceRow[] = [];
  for (const batch of batches) {
    const matches = set.match(batch.events);
    const alertOf = new Map<string, string>();
    alerts += await raiseRuleAlerts(tx, orgId, matches, alertOf, deps);
    alerts += await raiseCorrelationAlerts(tx, orgId, matches, batch.receivedAt.getTime(), alertOf, deps);
    for (const [id, m] of matches.perDetection) {
      matched += m.events.length;
      counts.set(id, (counts.get(id) ?? 0) + m.events.length);
      for (const event of m.events.slice(0, SAMPLE_PER_BATCH)) evidence.push({ detectionId: id, ruleTitle: m.ruleTitle, alertId: alertOf.get(id) ?? null, event });
    }
  }
  const at = new Date();
  await countMatches(tx, orgId, [...counts].map(([detectionId, n]) => ({ detectionId, matches: n })), at);
  await keepSamples(tx, orgId, evidence, at);
  return { matched, alerts };
}

type EvidenceRow = { detectionId: string; ruleTitle: string; alertId: string | null; event: Record<string, unknown> };

async function raiseRuleAlerts(tx: Queryable, orgId: string, matches: BatchMatches, alertOf: Map<string, string>, deps: AlertDeps): Promise<number> {
  let alerts = 0;
  for (const m of matches.rules) {
    const d = m.loaded.detection;
    const result = await raiseDetectionMatch(
      tx,
      { ...d, organizationId: orgId },
      {
        title: m.rule.title,
        severity: severityOf(m.rule.level, d.severity),
        dedupeKey: `rule:${ruleKeyOf(m.rule)}`,
        hitId: uuidv7(),
        payload: {
          kind: 'sigma_match',
          rule: { id: m.rule.id, title: m.rule.title, level: m.rule.level, logsource: m.rule.logsource },
          matchedEvents: m.events.length,
          events: m.events.slice(0, EVIDENCE_PER_ALERT),
          attack: attackFor(m.loaded, m.rule.tags),
        },
      },
      deps,
    );
    if (result.created) alerts++;
    alertOf.set(d.id, result.alert.id);
  }
  return alerts;
}

async function raiseCorrelationAlerts(tx: Queryable, orgId: string, matches: BatchMatches, receivedAt: number, alertOf: Map<string, string>, deps: AlertDeps): Promise<number> {
  let alerts = 0;
  // A fixed order of the correlations' advisory locks: two drains feeding the same rules never deadlock.
  const feeds = [...matches.correlations].sort((a, b) => lockOrder(a).localeCompare(lockOrder(b)));
  for (const feed of feeds) {
    for (const hit of await advanceCorrelation(tx, orgId, feed, receivedAt)) {
      const d = feed.loaded.detection;
      const c = hit.correlation;
      const result = await raiseDetectionMatch(
        tx,
        { ...d, organizationId: orgId },
        {
          title: c.title,
          severity: severityOf(c.level, d.severity),
          dedupeKey: `correlation:${ruleKeyOf(c)}:${JSON.stringify(Object.values(hit.group))}`,
          hitId: uuidv7(),
          payload: {
            kind: 'sigma_correlation',
            correlation: { id: c.id, title: c.title, type: c.type, groupBy: c.groupBy, timespanSeconds: c.timespanMs / 1000, rules: c.rules.map((r) => r.title) },
            group: hit.group,
            firstSeen: new Date(hit.firstSeen).toISOString(),
            lastSeen: new Date(hit.lastSeen).toISOString(),
            matchedEvents: hit.events.length,
            events: hit.events.slice(-EVIDENCE_PER_ALERT),
            attack: attackFor(feed.loaded, c.tags),
          },
        },
        deps,
      );
      if (result.created) alerts++;
      alertOf.set(d.id, result.alert.id);
    }
  }
  return alerts;
}

const lockOrder = (feed: CorrelationFeed) => `${feed.loaded.detection.id}:${ruleKeyOf(feed.correlation)}`;

/**
 * The batch's events into one correlation rule's windows, stored in PostgreSQL: loaded and saved
 * under a transaction-scoped advisory lock on the rule, so two workers feeding it queue instead
 * of each counting half a burst.
 */
async function advanceCorrelation(tx: Queryable, orgId: string, feed: CorrelationFeed, receivedAt: number): Promise<CorrelationHit[]> {
  const c = feed.correlation;
  const detectionId = feed.loaded.detection.id;
  const name = ruleKeyOf(c);
  await lockCorrelation(tx, detectionId, name);
  const keyed = feed.entries.map((e) => ({ ...e, key: c.groupKey(e.rule, e.event), ts: eventTime(e.event, receivedAt) }));
  const keys = [...new Set(keyed.map((e) => e.key))];
  const stored = await loadWindows(tx, detectionId, name, keys);
  const window = new CorrelationWindow(c);
  window.restore([...stored.entries()]);
  const hits: CorrelationHit[] = [];
  for (const e of keyed.sort((a, b) => a.ts - b.ts)) {
    const hit = window.add(e.rule, e.event, e.ts);
    if (hit) hits.push(hit);
  }
  const now = new Map(window.snapshot() as Array<[string, WindowEntries]>);
  for (const key of keys) {
    const entries = now.get(key);
    if (entries && entries.length) await saveWindow(tx, { organizationId: orgId, detectionId, correlation: name, groupKey: key, entries });
    else if (stored.has(key)) await deleteWindow(tx, detectionId, name, key);
  }
  return hits;
}

export function createDetectJobs(deps: WorkerDeps, compiled: CompiledDetections = createCompiledDetections()): ReadonlyArray<JobDefinition<any>> {
  const alertDeps = { events: deps.events };
  return [
    defineJob({
      ...drainEventsJob,
      async run({ organizationId }, ctx) {
        const r = await drainOrganization(deps.db, compiled, alertDeps, organizationId, { signal: ctx.signal });
        if (r.matched) ctx.logger.debug({ organizationId, ...r }, 'events matched');
      },
    }),
    defineJob({
      ...matchEventsJob,
      async run({ batchId }, ctx) {
        const organizationId = await organizationOfBatch(deps.db, batchId);
        if (organizationId) await drainOrganization(deps.db, compiled, alertDeps, organizationId, { signal: ctx.signal });
      },
    }),
  ];
}
