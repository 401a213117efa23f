import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { createCompiledDetections, INLINE_COMPILE_LIMIT } from '../../src/modules/detect/compiled-detections.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startServiceWorker } from '../support/worker.js';
import { until } from '../support/until.js';

/**
 * Issue 44 item 3: when detections change, the worker compiles only the changed ones; a batch
 * posted right after a small change matches the NEW set, and after a bulk change (more than
 * INLINE_COMPILE_LIMIT detections) the PREVIOUS set keeps matching while the new one compiles in
 * the background (docs/detections.md#when-detections-change). Through the HTTP API and the
 * service's own job catalog in a real worker.
 */
let t: TestContext;
let key: string;
let worker: WorkerRunner;

const rule = (n: number, needle: string) => `title: Marker rule ${n}
id: 00000000-0000-4000-8000-${String(n).padStart(12, '0')}
status: test
level: medium
logsource:
  product: linux
  category: process_creation
detection:
  selection:
    CommandLine|contains: '${needle}'
  condition: selection
`;

async function importRules(content: string): Promise<string[]> {
  const res = await t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers: bearer(key), payload: { format: 'sigma', content } });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().created as Array<{ id: string }>).map((c) => c.id);
}

async function post(commandLines: string[]): Promise<void> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/events?product=linux&category=process_creation',
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson' },
    payload: commandLines.map((c) => JSON.stringify({ CommandLine: c, User: 'root' })).join('\n'),
  });
  expect(res.statusCode, res.body).toBe(202);
}

async function settled(): Promise<void> {
  // 30 s (what 600 tries 50 ms apart gave) bounds a hang.
  await until(
    'every event batch to be matched',
    async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM detect_event_batches`.execute(t.database.db)).rows[0]!.n === 0,
    { timeoutMs: 30_000, everyMs: 50 },
  );
}

async function signals(detectionId: string): Promise<number> {
  const list = (await t.app.inject({ url: '/api/alerts?limit=200', headers: bearer(key) })).json().alerts as Array<{ id: string; codeDetectionId: string | null }>;
  const mine = list.filter((a) => a.codeDetectionId === detectionId);
  if (mine.length === 0) return 0;
  return (await t.app.inject({ url: `/api/alerts/${mine[0]!.id}`, headers: bearer(key) })).json().alert.duplicateCount as number;
}

beforeAll(async () => {
  t = await createTestApp();
  key = t.orgA.apiKey.key;
  worker = await startServiceWorker(t, { concurrency: 1 });
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

describe('when detections change', () => {
  let first: string;

  it('a batch posted right after one new detection matches the new set (only it is compiled)', async () => {
    first = (await importRules(rule(1, 'marker-one')))[0]!;
    await post(['echo marker-one']);
    await settled();
    expect(await signals(first!)).toBe(1);

    const [second] = await importRules(rule(2, 'marker-two'));
    // Right after the change: this batch already matches the new detection.
    await post(['echo marker-one', 'echo marker-two']);
    await settled();
    expect(await signals(first!)).toBe(2);
    expect(await signals(second!)).toBe(1);
  });

  it(`after a bulk change (more than ${INLINE_COMPILE_LIMIT} detections) the previous set matches until the new one is compiled`, async () => {
    const bulk = Array.from({ length: INLINE_COMPILE_LIMIT + 10 }, (_, i) => rule(100 + i, `bulk-marker-${100 + i}`)).join('---\n');
    // Separate documents of one import: each becomes its own detection.
    const ids = await importRules(bulk);
    expect(ids).toHaveLength(INLINE_COMPILE_LIMIT + 10);
    const last = ids.at(-1)!;
    // Right after the bulk change: the previous set (marker-one) matches; the new rules are not in it yet.
    await post(['echo marker-one', `echo bulk-marker-${100 + INLINE_COMPILE_LIMIT + 9}`]);
    await settled();
    expect(await signals(first!)).toBe(3);
    expect(await signals(last)).toBe(0);
    // Once compiled (in the background), the new set matches: later batches alert on the new rules.
    for (let i = 0; i < 200 && (await signals(last)) === 0; i++) {
      await post([`echo bulk-marker-${100 + INLINE_COMPILE_LIMIT + 9}`]);
      await settled();
    }
    expect(await signals(last)).toBeGreaterThan(0);
  });

  it('compiles only the detections whose Sigma text changed; the others keep their compiled rules', async () => {
    const compiled = createCompiledDetections();
    const orgId = t.orgA.organization.id;
    const before = await compiled.forOrganization(t.database.db, orgId);
    const ruleOf = (set: typeof before, id: string) => set.detections.find((d) => d.detection.id === id)!.rules[0];
    const list = (await t.app.inject({ url: '/api/code-detections?limit=200', headers: bearer(key) })).json().codeDetections as Array<{ id: string; name: string }>;
    const other = list.find((d) => d.id !== first)!;
    // Change the first detection's Sigma text (its needle), nothing else.
    const res = await t.app.inject({ method: 'PUT', url: `/api/code-detections/${first}`, headers: bearer(key), payload: { name: 'Marker rule 1', severity: 'medium', query: rule(1, 'marker-uno') } });
    expect(res.statusCode, res.body).toBe(200);
    const after = await compiled.forOrganization(t.database.db, orgId);
    expect(after).not.toBe(before);
    expect(ruleOf(after, other.id)).toBe(ruleOf(before, other.id));
    expect(ruleOf(after, first!)).not.toBe(ruleOf(before, first!));
    // And the worker's set follows: the new needle matches, the old one no longer does.
    const was = await signals(first!);
    await post(['echo marker-one']);
    await settled();
    expect(await signals(first!)).toBe(was);
    await post(['echo marker-uno']);
    await settled();
    expect(await signals(first!)).toBe(was + 1);
  });
});
