import { uuidv7 } from 'uuidv7';
import type { Database, Queryable } from '../../platform/db/database.js';
import { defineJob, type JobDefinition } from '../../platform/jobs/catalog.js';
import type { WorkerDeps } from '../../platform/module.js';
import { CorrelationWindow, eventTime, raiseDetectionMatch, type CorrelationHit } from '../alerts/index.js';
import type { AlertDeps } from '../alerts/index.js';
import { attackOf, ruleKeyOf, severityOf, type BatchMatches, type CorrelationFeed, type LoadedDetection } from './detect-match.fns.js';
import { createCompiledDetections, type CompiledDetections } from './compiled-detections.js';
import { countMatches, deleteBatch, deleteWindow, findBatch, keepSamples, loadWindows, lockCorrelation, saveWindow, type WindowEntries } from './detect.repo.js';
import { matchEventsJob } from './detect.job-def.js';

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
 * One batch: matched outside any transaction (CPU only), then its alerts, correlation windows,
 * match counts and evidence written in one transaction that also deletes the batch. A retry after
 * a crash finds the batch either whole (nothing was written) or gone (everything was).
 */
export async function matchBatch(db: Database, compiled: CompiledDetections, deps: AlertDeps, batchId: string): Promise<{ matched: number; alerts: number } | null> {
  const batch = await findBatch(db, batchId);
  if (!batch) return null;
  const orgId = batch.organizationId;
  const set = await compiled.forOrganization(db, orgId);
  const matches = set.match(batch.events);
  const receivedAt = batch.receivedAt.getTime();
  let alerts = 0;
  await db.transaction().execute(async (tx) => {
    if (!(await deleteBatch(tx, batchId))) return;
    const alertOf = new Map<string, string>();
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
    for (const feed of matches.correlations) {
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
    await recordMatches(tx, orgId, matches, alertOf, new Date());
  });
  return { matched: [...matches.perDetection.values()].reduce((n, d) => n + d.events.length, 0), alerts };
}

async function recordMatches(tx: Queryable, orgId: string, matches: BatchMatches, alertOf: Map<string, string>, at: Date): Promise<void> {
  const per = [...matches.perDetection.entries()];
  await countMatches(tx, orgId, per.map(([id, m]) => ({ detectionId: id, matches: m.events.length })), at);
  await keepSamples(
    tx,
    orgId,
    per.flatMap(([id, m]) => m.events.slice(0, SAMPLE_PER_BATCH).map((event) => ({ detectionId: id, ruleTitle: m.ruleTitle, alertId: alertOf.get(id) ?? null, event }))),
    at,
  );
}

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
  return [
    defineJob({
      ...matchEventsJob,
      async run({ batchId }, ctx) {
        const r = await matchBatch(deps.db, compiled, { events: deps.events }, batchId);
        if (r && r.matched) ctx.logger.debug({ batchId, ...r }, 'events matched');
      },
    }),
  ];
}
