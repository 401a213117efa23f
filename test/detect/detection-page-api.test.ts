import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startServiceWorker } from '../support/worker.js';
import { userWithPermissions } from '../support/actors.js';
import { hasShared, sharedPath } from '../support/shared-dir.js';
import { until } from '../support/until.js';

/**
 * What the console's detection page reads beyond the detection itself (issue 44 item 5):
 * GET /api/code-detections/{id}/tests (the tests its Sigma text carries, run against the stored
 * rule, including those config apply wrote from `spec.tests`) and GET /api/code-detections/{id}/noisy-fields
 * (the field/value pairs its evidence sample matched on most), with a real SigmaHQ rule
 * (shared/fixtures/sigma, DRL 1.1, author: Swachchhanda Shrawan Poudel (Nextron Systems)) matched by the real worker.
 */
const RULE_FILE = 'fixtures/sigma/rules/rules/windows/process_creation/proc_creation_win_susp_cross_user_process_spawn.yml';
const HAVE_RULE = hasShared(RULE_FILE);
if (!HAVE_RULE) process.stderr.write(`detection-page-api: skipped, ${sharedPath(RULE_FILE)} is absent (the team's shared folder)\n`);
const CROSS_USER = HAVE_RULE ? fs.readFileSync(sharedPath(RULE_FILE), 'utf8') : '';

const spawn = (image: string, user: string, parentUser: string) => ({ Image: `C:\\Windows\\System32\\${image}`, User: user, ParentUser: parentUser, CommandLine: image });

// The rule as a repository keeps it: the SigmaHQ text with a `tests:` key (the form `rampart detections test` reads).
const WITH_TESTS = `${CROSS_USER.trimEnd()}
tests:
  - name: notepad under another user matches
    event: ${JSON.stringify(spawn('notepad.exe', 'CORP\\\\admin', 'CORP\\\\alice'))}
    expect: match
  - name: same user does not match
    events:
      - ${JSON.stringify(spawn('notepad.exe', 'CORP\\\\alice', 'CORP\\\\alice'))}
      - ${JSON.stringify(spawn('calc.exe', 'CORP\\\\bob', 'CORP\\\\bob'))}
    expect: no_match
  - name: a wrong expectation (fails on purpose)
    event: ${JSON.stringify(spawn('calc.exe', '-', 'CORP\\\\alice'))}
    expect: match
  - name: malformed
    expect: match
`;

let t: TestContext;
let admin: Record<string, string>;
let worker: WorkerRunner;
let detectionId: string;

async function settled(): Promise<void> {
  // 15 s (what 300 tries 50 ms apart gave) bounds a hang.
  await until('every event batch to be matched', async () => (await t.database.db.selectFrom('detectEventBatches').select('id').limit(1).execute()).length === 0, { timeoutMs: 15_000, everyMs: 50 });
}

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  const imported = await t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers: admin, payload: { format: 'sigma', content: WITH_TESTS } });
  expect(imported.statusCode, imported.body).toBe(200);
  expect(imported.json().errors).toEqual([]);
  detectionId = imported.json().created[0].id;
  worker = await startServiceWorker(t, { concurrency: 1 });
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

describe.skipIf(!HAVE_RULE)('GET /api/code-detections/{id}/tests', () => {
  it('runs the tests the rule text carries: verdicts, the failing event, per-event matched selections', async () => {
    const res = await t.app.inject({ url: `/api/code-detections/${detectionId}/tests`, headers: admin });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.errors).toEqual(['tests[3] (malformed): needs event (a JSON object) or events (a list of them)']);
    expect(body.tests).toEqual([
      { index: 0, name: 'notepad under another user matches', expect: 'match', passed: true, failingIndex: null, events: [{ index: 0, matched: true, matchedSelections: ['selection'] }] },
      {
        index: 1,
        name: 'same user does not match',
        expect: 'no_match',
        passed: true,
        failingIndex: null,
        events: [
          { index: 0, matched: false, matchedSelections: ['selection', 'filter_main_same_user'] },
          { index: 1, matched: false, matchedSelections: ['selection', 'filter_main_same_user'] },
        ],
      },
      { index: 2, name: 'a wrong expectation (fails on purpose)', expect: 'match', passed: false, failingIndex: 0, events: [{ index: 0, matched: false, matchedSelections: ['selection', 'filter_optional_empty_user'] }] },
    ]);
  });

  it('tests written as spec.tests by config apply are kept in the rule text and run', async () => {
    const document = {
      apiVersion: 'rampart/v1',
      kind: 'CodeDetection',
      metadata: { name: 'cross-user-from-repo' },
      spec: { sigma: CROSS_USER.replace(/^id: .*$/m, 'id: 6f1e2d3c-4b5a-4978-8e6f-5a4b3c2d1e0f'), tests: [{ name: 'spawned as admin', event: spawn('mspaint.exe', 'CORP\\admin', 'CORP\\carol'), expect: 'match' }] },
    };
    const applied = await t.app.inject({ method: 'POST', url: '/api/config/apply', headers: admin, payload: { documents: [document] } });
    expect(applied.statusCode, applied.body).toBe(200);
    const list = (await t.app.inject({ url: '/api/code-detections?limit=100', headers: admin })).json().codeDetections as Array<{ id: string; name: string; ruleId: string | null; query: string }>;
    const fromRepo = list.find((d) => d.name === 'cross-user-from-repo')!;
    expect(fromRepo.query).toMatch(/^tests:\n {2}- name: spawned as admin$/m);
    const res = (await t.app.inject({ url: `/api/code-detections/${fromRepo.id}/tests`, headers: admin })).json();
    expect(res.tests.map((x: { name: string; passed: boolean }) => [x.name, x.passed])).toEqual([['spawned as admin', true]]);
    // Planning the same document again changes nothing: the stored text is what the document maps to.
    const plan = await t.app.inject({ method: 'POST', url: '/api/config/plan', headers: admin, payload: { documents: [document] } });
    expect(plan.statusCode, plan.body).toBe(200);
    expect(plan.json().changes).toEqual([]);
  });

  it('a detection without tests answers none; 422 without a Sigma rule; 403; 404 for another organization; 400 for a bad id', async () => {
    const plain = await t.app.inject({ method: 'POST', url: '/api/code-detections', headers: admin, payload: { name: 'Splunk search', query: 'index=main sourcetype=x' } });
    const notSigma = await t.app.inject({ url: `/api/code-detections/${plain.json().id}/tests`, headers: admin });
    expect(notSigma.statusCode).toBe(422);
    expect(notSigma.json()).toEqual({ error: 'This code detection has no Sigma rule (its query is not Sigma YAML)' });

    const bare = await t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers: admin, payload: { format: 'sigma', content: CROSS_USER.replace(/^id: .*$/m, 'id: 0b7a0c9e-7d1f-4c57-9a39-1c2b3d4e5f60') } });
    const none = await t.app.inject({ url: `/api/code-detections/${bare.json().created[0].id}/tests`, headers: admin });
    expect(none.json()).toEqual({ tests: [], errors: [] });

    const noPerms = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read']);
    const denied = await t.app.inject({ url: `/api/code-detections/${detectionId}/tests`, headers: bearer(noPerms.key) });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: expect.any(String), missingPerms: ['alert.read'] });
    const foreign = await t.app.inject({ url: `/api/code-detections/${detectionId}/tests`, headers: bearer(t.orgB.apiKey.key) });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: 'Code detection not found' });
    const badId = await t.app.inject({ url: `/api/code-detections/${'x'.repeat(300)}/tests`, headers: admin });
    expect(badId.statusCode).toBe(400);
  });
});

describe.skipIf(!HAVE_RULE)('GET /api/code-detections/{id}/noisy-fields', () => {
  it('none before a match; after matches, the field/value pairs of the matching selections, most frequent first', async () => {
    const before = await t.app.inject({ url: `/api/code-detections/${detectionId}/noisy-fields`, headers: admin });
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json()).toEqual({ codeDetectionId: detectionId, sampledEvents: 0, fields: [] });

    const events = [
      spawn('notepad.exe', 'CORP\\admin', 'CORP\\alice'),
      spawn('notepad.exe', 'CORP\\admin', 'CORP\\bob'),
      spawn('notepad.exe', 'CORP\\svc', 'CORP\\bob'),
      spawn('calc.exe', 'CORP\\admin', 'CORP\\alice'),
      // Not matched: same user (the filter), and a binary the rule does not name.
      spawn('notepad.exe', 'CORP\\alice', 'CORP\\alice'),
      spawn('cmd.exe', 'CORP\\admin', 'CORP\\alice'),
    ];
    const res = await t.app.inject({ method: 'POST', url: '/api/events?product=windows&category=process_creation', headers: { ...admin, 'content-type': 'application/x-ndjson' }, payload: events.map((e) => JSON.stringify(e)).join('\n') });
    expect(res.statusCode, res.body).toBe(202);
    await settled();

    const noisy = await t.app.inject({ url: `/api/code-detections/${detectionId}/noisy-fields`, headers: admin });
    expect(noisy.json()).toEqual({
      codeDetectionId: detectionId,
      sampledEvents: 4,
      fields: [
        // Only the rule's own fields of the selection that matched: User and ParentUser are in filters, which did not.
        { field: 'Image', value: 'C:\\Windows\\System32\\notepad.exe', matches: 3, selections: ['selection'] },
        { field: 'Image', value: 'C:\\Windows\\System32\\calc.exe', matches: 1, selections: ['selection'] },
      ],
    });
    const one = await t.app.inject({ url: `/api/code-detections/${detectionId}/noisy-fields?limit=1`, headers: admin });
    expect(one.json().fields).toHaveLength(1);
  });

  it('400 for a bad limit, 403 without alert.read, 404 for another organization\'s detection', async () => {
    for (const limit of ['0', '101', 'many']) {
      const bad = await t.app.inject({ url: `/api/code-detections/${detectionId}/noisy-fields?limit=${limit}`, headers: admin });
      expect(bad.statusCode, limit).toBe(400);
      expect(bad.json()).toMatchObject({ error: 'Validation failed', issues: [expect.objectContaining({ path: 'limit' })] });
    }
    const noPerms = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read']);
    const denied = await t.app.inject({ url: `/api/code-detections/${detectionId}/noisy-fields`, headers: bearer(noPerms.key) });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: expect.any(String), missingPerms: ['alert.read'] });
    const foreign = await t.app.inject({ url: `/api/code-detections/${detectionId}/noisy-fields`, headers: bearer(t.orgB.apiKey.key) });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: 'Code detection not found' });
    const unknown = await t.app.inject({ url: '/api/code-detections/0195f0a0-0000-7000-8000-000000000000/noisy-fields', headers: admin });
    expect(unknown.statusCode).toBe(404);
  });
});
