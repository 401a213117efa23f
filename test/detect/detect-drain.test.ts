import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEventBus } from '../../src/platform/events.js';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { createCompiledDetections } from '../../src/modules/detect/compiled-detections.js';
import { drainOrganization } from '../../src/modules/detect/detect-match.jobs.js';
import { matchEventsJob } from '../../src/modules/detect/detect.job-def.js';
import { enqueue } from '../../src/platform/jobs/enqueue.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startServiceWorker } from '../support/worker.js';
import { until } from '../support/until.js';

/**
 * Issue 44's drain: a burst of event batches is one pending job per organization, drained by
 * claims that read and delete several batches at once; a claim that fails leaves its batches
 * waiting, and concurrent drains never take a batch twice. Through the HTTP API and the service's
 * own job catalog in a real worker (or the drain itself, where two must run at once).
 */
let t: TestContext;
let key: string;
let orgId: string;
let detectionId: string;
let worker: WorkerRunner | null = null;

const RULE = `title: Mimikatz command line
id: 7d3c1a55-0b7e-4c1e-9f0a-2b6d8e4f1a90
status: test
level: critical
logsource:
  product: windows
  category: process_creation
detection:
  selection:
    CommandLine|contains: 'sekurlsa::logonpasswords'
  condition: selection
`;

/** A shipper's batch: one event the rule matches, one it does not. */
const batch = (n: number) =>
  [
    JSON.stringify({ CommandLine: `mimikatz.exe "sekurlsa::logonpasswords" exit #${n}`, Image: 'C:\\Temp\\m.exe', User: `CORP\\u${n}` }),
    JSON.stringify({ CommandLine: 'notepad.exe', Image: 'C:\\Windows\\notepad.exe', User: `CORP\\u${n}` }),
  ].join('\n');

async function post(n: number): Promise<void> {
  const res = await t.app.inject({ method: 'POST', url: '/api/events?product=windows&category=process_creation', headers: { ...bearer(key), 'content-type': 'application/x-ndjson' }, payload: batch(n) });
  expect(res.statusCode, res.body).toBe(202);
  expect(res.json()).toEqual({ accepted: 2 });
}

const waitingBatches = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM detect_event_batches`.execute(t.database.db)).rows[0]!.n);

async function drainJobs(): Promise<Array<{ key: string | null; lockedAt: Date | null }>> {
  const { rows } = await sql<{ key: string | null; lockedAt: Date | null }>`
    SELECT j.key, j.locked_at FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks k ON k.id = j.task_id
    WHERE k.identifier = 'detect:drain-events'`.execute(t.database.db);
  return rows;
}

async function settled(): Promise<void> {
  // 30 s (what 600 tries 50 ms apart gave) bounds a hang.
  await until('every event batch to be drained', async () => (await waitingBatches()) === 0 && (await drainJobs()).length === 0, { timeoutMs: 30_000, everyMs: 50 });
}

async function startWorker(): Promise<void> {
  worker = await startServiceWorker(t);
}

async function theAlert() {
  const list = (await t.app.inject({ url: '/api/alerts?limit=100', headers: bearer(key) })).json().alerts as Array<{ id: string; codeDetectionId: string | null }>;
  const mine = list.filter((a) => a.codeDetectionId === detectionId);
  expect(mine).toHaveLength(1);
  return (await t.app.inject({ url: `/api/alerts/${mine[0]!.id}`, headers: bearer(key) })).json().alert as { id: string; duplicateCount: number };
}

const matchesCounted = async () => (await t.app.inject({ url: `/api/code-detections/${detectionId}/activity`, headers: bearer(key) })).json().matchesInWindow as number;

beforeAll(async () => {
  t = await createTestApp();
  key = t.orgA.apiKey.key;
  orgId = t.orgA.organization.id;
  const imported = await t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers: bearer(key), payload: { format: 'sigma', content: RULE } });
  expect(imported.statusCode, imported.body).toBe(200);
  detectionId = imported.json().created[0].id;
});
afterEach(async () => {
  await worker?.stop();
  worker = null;
});
afterAll(async () => {
  await t?.close();
});

describe('events are drained per organization', () => {
  it('a burst of batches is one pending job; the drain matches each batch once (a signal per batch)', async () => {
    for (let n = 1; n <= 5; n++) await post(n);
    expect(await waitingBatches()).toBe(5);
    // Five batches, one job: each later batch only touched the pending job's row.
    expect(await drainJobs()).toEqual([{ key: `detect:drain:${orgId}`, lockedAt: null }]);

    await startWorker();
    await settled();
    const alert = await theAlert();
    // One alert for the rule, counted once per batch: 5 signals, none lost, none twice.
    expect(alert.duplicateCount).toBe(5);
    expect(await matchesCounted()).toBe(5);
  });

  it('a drain that fails mid-claim leaves its batches waiting; the retry matches each exactly once', async () => {
    const before = await theAlert();
    // The claim's last write fails once (a sequence is not rolled back: the retry passes), after
    // its alerts were written in the same transaction: they must vanish with it.
    await sql`CREATE SEQUENCE drain_test_failures`.execute(t.database.db);
    await sql`
      CREATE FUNCTION drain_test_fail() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('drain_test_failures') = 1 THEN RAISE EXCEPTION 'simulated crash mid-drain'; END IF;
        RETURN NEW;
      END $$`.execute(t.database.db);
    await sql`CREATE TRIGGER drain_test_fail BEFORE INSERT ON detect_match_days FOR EACH ROW EXECUTE FUNCTION drain_test_fail()`.execute(t.database.db);
    try {
      await post(6);
      await post(7);
      const compiled = createCompiledDetections();
      await expect(drainOrganization(t.database.db, compiled, { events: createEventBus([]) }, orgId)).rejects.toThrow(/simulated crash mid-drain/);
      // Rolled back whole: both batches wait again, and the alert did not count them.
      expect(await waitingBatches()).toBe(2);
      expect((await theAlert()).duplicateCount).toBe(before.duplicateCount);

      // The queued job (a real worker) drains them: each counted once.
      await startWorker();
      await settled();
      expect((await theAlert()).duplicateCount).toBe(before.duplicateCount + 2);
      expect(await matchesCounted()).toBe(7);
    } finally {
      await sql`DROP TRIGGER drain_test_fail ON detect_match_days`.execute(t.database.db);
      await sql`DROP FUNCTION drain_test_fail()`.execute(t.database.db);
      await sql`DROP SEQUENCE drain_test_failures`.execute(t.database.db);
    }
  });

  it('two drains of one organization at once take disjoint batches (SKIP LOCKED): every batch once', async () => {
    const before = await theAlert();
    // More batches than one claim takes, so that both drains claim some.
    for (let n = 100; n < 140; n++) await post(n);
    const compiled = createCompiledDetections();
    const deps = { events: createEventBus([]) };
    const [a, b] = await Promise.all([drainOrganization(t.database.db, compiled, deps, orgId), drainOrganization(t.database.db, compiled, deps, orgId)]);
    expect(a.batches + b.batches).toBe(40);
    expect(a.matched + b.matched).toBe(40);
    expect(await waitingBatches()).toBe(0);
    expect((await theAlert()).duplicateCount).toBe(before.duplicateCount + 40);
    expect(await matchesCounted()).toBe(47);
    // The job enqueued with them finds nothing left and ends.
    await startWorker();
    await settled();
    expect((await theAlert()).duplicateCount).toBe(before.duplicateCount + 40);
  });

  it('a claim stops taking batches past 1,000 events (a batch is never split): big batches wait less for one commit', async () => {
    const big = (n: number) => Array.from({ length: 600 }, (_, i) => JSON.stringify({ CommandLine: `cmd.exe /c echo ${n}-${i}`, User: 'CORP\\x' })).join('\n');
    for (const n of [1, 2, 3]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/events?product=windows&category=process_creation', headers: { ...bearer(key), 'content-type': 'application/x-ndjson' }, payload: big(n) });
      expect(res.json()).toEqual({ accepted: 600 });
    }
    const claims: number[][] = [];
    const report = await drainOrganization(t.database.db, createCompiledDetections(), { events: createEventBus([]) }, orgId, {
      onClaim: (claimed) => claims.push(claimed.map((c) => Number(String(c.firstEvent?.CommandLine).split(' ').pop()!.split('-')[0]))),
    });
    // 600 + 600 (the second starts below 1,000), then the third alone; in arrival order.
    expect(claims).toEqual([[1, 2], [3]]);
    expect(report).toEqual({ batches: 3, matched: 0, alerts: 0 });
    await startWorker();
    await settled();
  });

  it('another organization\'s batches are drained by its own job and never match this one\'s detections', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/events?product=windows&category=process_creation', headers: { ...bearer(t.orgB.apiKey.key), 'content-type': 'application/x-ndjson' }, payload: batch(999) });
    expect(res.statusCode, res.body).toBe(202);
    await post(1000);
    expect((await drainJobs()).map((j) => j.key).sort()).toEqual([`detect:drain:${orgId}`, `detect:drain:${t.orgB.organization.id}`].sort());
    const before = await theAlert();
    await startWorker();
    await settled();
    expect((await theAlert()).duplicateCount).toBe(before.duplicateCount + 1);
    const foreign = (await t.app.inject({ url: '/api/alerts?limit=100', headers: bearer(t.orgB.apiKey.key) })).json().alerts;
    expect(foreign).toEqual([]);
  });

  it('a matching job queued by an older version (one batch id) drains its batch\'s organization', async () => {
    const before = await theAlert();
    await post(2000);
    // As the version before the drain left it: the batch's own job, no drain job.
    await sql`DELETE FROM graphile_worker._private_jobs WHERE key = ${`detect:drain:${orgId}`}`.execute(t.database.db);
    const { rows } = await sql<{ id: string }>`SELECT id FROM detect_event_batches`.execute(t.database.db);
    expect(rows).toHaveLength(1);
    await enqueue(t.database.db, matchEventsJob, { batchId: rows[0]!.id });
    await startWorker();
    await settled();
    expect((await theAlert()).duplicateCount).toBe(before.duplicateCount + 1);
  });
});
