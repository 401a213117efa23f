import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startServiceWorker } from '../support/worker.js';
import { userWithPermissions } from '../support/actors.js';
import { configureModel, createAgent, waitForRun } from '../support/agents.js';
import { createDestination } from '../support/delivery.js';
import { until } from '../support/until.js';
import { startFakeOpenAI, type FakeOpenAI, type OpenAIRequest, type ScriptedTurn } from '../support/fakes/openai-server.js';
import { startFakeMcp, type FakeMcp } from '../support/fakes/mcp-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/fakes/webhook-receiver.js';

/**
 * Evaluations (issue 31) through the HTTP API with the service's job catalog: a labelled dataset,
 * an agent scripted per case by the fake model, the sandbox (nothing real touched: asserted on
 * the fake receivers, the MCP fake and the database), compare, and the judge (the same fake
 * model, answering as a judge when its system prompt is the judge's).
 */
let t: TestContext;
let admin: Record<string, string>;
let openai: FakeOpenAI;
let mcp: FakeMcp;
let receiver: WebhookReceiver;
let worker: WorkerRunner;
const SECRET = `whsec_${Buffer.from('evaluations-receiver').toString('base64')}`;

/** What the agent does per case title, by agent version (its system prompt says which). */
const ACTIONS: Record<string, Record<string, string | null>> = {
  v1: { E1: 'escalated', E2: 'closed_false_positive', F1: 'closed_false_positive', F2: 'escalated', B1: 'closed_benign', B2: null },
  v2: { E1: 'escalated', E2: 'closed_false_positive', F1: 'closed_false_positive', F2: 'closed_false_positive', B1: null, B2: null },
};
let destinationId = '';

function agentTurn(req: OpenAIRequest): ScriptedTurn {
  const messages = req.body.messages ?? [];
  const system = String(messages[0]?.content ?? '');
  if (messages.some((m) => m.role === 'tool')) return { text: 'Triage done.', usage: { inputTokens: 100, outputTokens: 10 } };
  const user = String(messages.find((m) => m.role === 'user')?.content ?? '');
  const title = /\("([A-Z]\d) /.exec(user)?.[1] ?? '';
  const status = ACTIONS[system.includes('v2') ? 'v2' : 'v1']![title];
  if (!status) return { text: 'Not sure; leaving it open.', usage: { inputTokens: 80, outputTokens: 8 } };
  const calls = [{ name: 'set_alert_status', args: { status, reason: `scripted for ${title}` } }];
  if (title === 'E1') {
    // Everything that would touch the world, in one step.
    calls.push(
      { name: 'get_alert', args: {} } as never,
      { name: 'create_alert', args: { title: 'Follow-up', severity: 'high' } } as never,
      { name: 'send_to_destination', args: { destinationId, message: 'Escalating E1' } } as never,
      { name: 'http_request', args: { url: receiver.url, method: 'POST', body: '{}' } } as never,
      { name: 'mcp__inventory__isolate_host', args: { hostname: 'web-01.corp.example' } } as never,
      { name: 'mcp__inventory__lookup_asset', args: { hostname: 'web-01.corp.example' } } as never,
    );
  }
  return { toolCalls: calls, usage: { inputTokens: 100, outputTokens: 20 } };
}

function judgeTurn(req: OpenAIRequest): ScriptedTurn {
  const prompt = String(req.body.messages?.find((m) => m.role === 'user')?.content ?? '');
  const criteria = [...prompt.matchAll(/^\d+\. (.+)$/gm)].map((m) => m[1]!);
  const graded = criteria.map((criterion) => ({ criterion, met: !criterion.includes('never'), explanation: criterion.includes('never') ? 'It did.' : 'It did so.' }));
  const allMet = graded.every((g) => g.met);
  return { object: { criteria: graded, score: allMet ? 90 : 25, explanation: allMet ? 'Met every criterion.' : 'Missed a criterion.' } };
}

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  admin = bearer(t.orgA.apiKey.key);
  openai = await startFakeOpenAI({ script: (req) => (String(req.body.messages?.[0]?.content ?? '').startsWith('You grade the work') ? judgeTurn(req) : agentTurn(req)) });
  mcp = await startFakeMcp({
    tools: [
      { name: 'lookup_asset', description: 'Look up an asset', inputSchema: { hostname: z.string() }, annotations: { readOnlyHint: true }, handler: () => ({ content: [{ type: 'text', text: 'web-01: owner=platform' }] }) },
      { name: 'isolate_host', description: 'Isolate a host from the network', inputSchema: { hostname: z.string() }, annotations: { destructiveHint: true }, handler: () => ({ content: [{ type: 'text', text: 'isolated' }] }) },
    ],
  });
  receiver = await startWebhookReceiver({ secret: SECRET });
  await configureModel(t, t.orgA.apiKey.key, { name: 'fake', type: 'openai-compatible', baseUrl: openai.url, alias: 'default', modelId: 'local-model' });
  const server = await t.app.inject({ method: 'POST', url: '/api/mcp-servers', headers: admin, payload: { name: 'inventory', url: mcp.url } });
  expect(server.statusCode, server.body).toBe(200);
  destinationId = await createDestination(t, t.orgA.apiKey.key, { type: 'webhook', name: 'SOAR', config: { url: receiver.url, authType: 'bearer' }, token: SECRET });
  worker = await startServiceWorker(t, { concurrency: 4 });
});
afterAll(async () => {
  await worker?.stop();
  await openai?.close();
  await mcp?.close();
  await receiver?.close();
  await t?.close();
});

/** A GuardDuty finding as EventBridge delivers it (test/fixtures/guardduty), titled per case. */
const GUARDDUTY = JSON.parse(readFileSync(new URL('../fixtures/guardduty/ssh-brute-force.eventbridge.json', import.meta.url), 'utf8'));
const finding = (title: string) => ({ ...GUARDDUTY, detail: { ...GUARDDUTY.detail, title: `${title} suspicious activity` } });
const alertCase = (title: string, disposition: string, extra: Record<string, unknown> = {}) => ({
  alert: { title: `${title} suspicious activity`, severity: 'high', source: 'GuardDuty', payload: finding(title) },
  expected: { disposition, ...extra },
  tags: [disposition],
});
const SIX = [
  alertCase('E1', 'escalate', { criteria: ['Escalates the alert'] }),
  alertCase('E2', 'escalate'),
  alertCase('F1', 'false_positive'),
  alertCase('F2', 'false_positive'),
  alertCase('B1', 'benign'),
  alertCase('B2', 'benign'),
];
const TOOLS = ['get_alert', 'set_alert_status', 'create_alert', 'send_to_destination', 'http_request', 'mcp:inventory/*'];

/**
 * The tests below wait on whole evaluations (six agent runs, then a judge) and on a judged run:
 * with this process pinned to a core two busy loops shared, the first evaluation outlasted the
 * default 20 s test timeout, and every later test, which builds on it, failed after it. The waits
 * are on states; these limits only bound a hang.
 */
const EVAL_LIMIT = 120_000;

/** The evaluation once it has ended; a failure shows its progress. */
async function waitForEvaluation(id: string, timeoutMs = 90_000) {
  let progress: unknown;
  const res = await until(
    'the evaluation to end',
    async () => {
      const r = await t.app.inject({ url: `/api/evaluations/${id}`, headers: admin });
      if (r.statusCode !== 200) return r; // ends the wait: the status is asserted below
      const body = r.json();
      progress = body.progress;
      return body.status !== 'running' && r;
    },
    { timeoutMs, everyMs: 100, context: () => `progress: ${JSON.stringify(progress)}` },
  );
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const count = async (table: 'alerts' | 'destinationDeliveries') => Number((await t.database.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);

let datasetId = '';
let agentId = '';
let first: Record<string, any>;

describe('evaluations', () => {
  it('creates a dataset of labelled cases; 409 on a taken name, 400 on a bad case, 404 in another organization', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/evaluation-datasets', headers: admin, payload: { name: 'Six', description: 'Known labels', cases: SIX } });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    datasetId = body.id;
    expect(body).toMatchObject({ name: 'Six', caseCount: 6, labels: { escalate: 2, false_positive: 2, benign: 2, unlabelled: 0 } });
    expect(body.cases[0].alert).toMatchObject({ title: 'E1 suspicious activity', source: { category: 'custom', name: 'GuardDuty' }, payload: { source: 'aws.guardduty', 'detail-type': 'GuardDuty Finding', detail: { title: 'E1 suspicious activity', type: GUARDDUTY.detail.type } } });

    const taken = await t.app.inject({ method: 'POST', url: '/api/evaluation-datasets', headers: admin, payload: { name: 'Six' } });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({ error: 'A dataset named "Six" already exists' });
    const bad = await t.app.inject({ method: 'POST', url: '/api/evaluation-datasets', headers: admin, payload: { name: 'Bad', cases: [{ expected: { disposition: 'maybe' } }] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('Validation failed');
    const other = await t.app.inject({ url: `/api/evaluation-datasets/${datasetId}`, headers: bearer(t.orgB.apiKey.key) });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ error: 'Dataset not found' });
  });

  it('imports JSONL cases, refusing a file with an invalid line as a whole', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/api/evaluation-datasets', headers: admin, payload: { name: 'JSONL' } });
    const id = created.json().id as string;
    const lines = `${JSON.stringify(alertCase('X1', 'benign'))}\n\n${JSON.stringify({ input: 'Is 203.0.113.9 bad?', expected: {} })}\n`;
    const ok = await t.app.inject({ method: 'POST', url: `/api/evaluation-datasets/${id}/cases/import`, headers: { ...admin, 'content-type': 'application/x-ndjson' }, payload: lines });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ added: 2, skipped: [], caseCount: 2 });
    const bad = await t.app.inject({ method: 'POST', url: `/api/evaluation-datasets/${id}/cases/import`, headers: { ...admin, 'content-type': 'application/x-ndjson' }, payload: `${lines}{nope\n` });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'line 4', message: 'not valid JSON', code: 'invalid_json', location: 'body' }] });
    const del = await t.app.inject({ method: 'DELETE', url: `/api/evaluation-datasets/${id}`, headers: admin });
    expect(del.json()).toEqual({ success: true });
  });

  it('evaluates an agent on six labelled cases: exact confusion matrix and rates, and nothing real is touched', async () => {
    agentId = await createAgent(t, t.orgA.apiKey.key, { name: 'Triage', systemPrompt: 'You are triage v1.', toolNames: TOOLS, outputDestinationIds: [destinationId] });
    const alertsBefore = await count('alerts');
    const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/evaluations`, headers: admin, payload: { datasetId, concurrency: 3 } });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ status: 'running', concurrency: 3, progress: { total: 6 } });
    first = await waitForEvaluation(res.json().id);

    expect(first.status).toBe('done');
    expect(first.summary).toMatchObject({
      cases: 6,
      finished: 6,
      labelled: 6,
      correct: 3,
      accuracy: 0.5,
      confusionMatrix: {
        escalate: { escalate: 1, false_positive: 1, benign: 0, none: 0 },
        false_positive: { escalate: 1, false_positive: 1, benign: 0, none: 0 },
        benign: { escalate: 0, false_positive: 0, benign: 1, none: 1 },
      },
      truePositiveRate: 0.5,
      falsePositiveRate: 0.25,
      wouldHaveClosedTruePositive: 1,
    });
    expect(first.summary.tokens.total).toBeGreaterThan(0);
    expect(first.summary.latencyMs.p50).not.toBeNull();
    // Wrong cases first, with their runs (transcripts).
    expect(first.cases.slice(0, 3).map((c: any) => c.correct)).toEqual([false, false, false]);
    const e1 = first.cases.find((c: any) => c.title.startsWith('E1'));
    expect(e1).toMatchObject({ verdict: 'escalate', correct: true, expected: { disposition: 'escalate' } });
    const effects = Object.fromEntries(e1.toolCalls.map((c: any) => [c.toolName, c.effect]));
    // In the order the agent called them, though the shadow's calls are recorded after slower writes (issue 47 item 7).
    expect(e1.toolCalls.map((c: any) => c.toolName)).toEqual(['set_alert_status', 'get_alert', 'create_alert', 'send_to_destination', 'http_request', 'mcp__inventory__isolate_host', 'mcp__inventory__lookup_asset']);
    // A call the agent's tool policy sends for approval (a POST, an MCP tool without
    // annotations) is recorded as "would have asked approval", never run (docs/approvals.md).
    expect(effects).toEqual({
      set_alert_status: 'shadow',
      get_alert: 'shadow',
      create_alert: 'recorded',
      send_to_destination: 'recorded',
      http_request: 'approval',
      mcp__inventory__isolate_host: 'approval',
      mcp__inventory__lookup_asset: 'called',
    });
    expect(e1.toolCalls.find((c: any) => c.toolName === 'mcp__inventory__isolate_host').args).toEqual({ hostname: 'web-01.corp.example' });

    // Nothing real: no alert, no delivery (the agent has a destination), no request to the receiver, the destructive MCP tool never called.
    expect(await count('alerts')).toBe(alertsBefore);
    expect(await count('destinationDeliveries')).toBe(0);
    expect(receiver.requests).toHaveLength(0);
    expect(mcp.calls.map((c) => c.name)).toEqual(['lookup_asset']);

    // The case's run is an evaluation run: its transcript is readable, it is not in the agent's run list.
    const run = await t.app.inject({ url: `/api/agent-runs/${e1.runId}`, headers: admin });
    expect(run.json()).toMatchObject({ mode: 'evaluation', status: 'done', deliveries: [] });
    expect(JSON.stringify(run.json().result.messages[1])).toContain('EVAL-1');
    const listed = await t.app.inject({ url: `/api/agent-runs?agentId=${agentId}`, headers: admin });
    expect(listed.json().totalCount).toBe(0);
    expect((await t.app.inject({ url: `/api/agent-runs?agentId=${agentId}&mode=evaluation`, headers: admin })).json().totalCount).toBe(6);
  }, EVAL_LIMIT);

  it('grades a case\'s criteria with the judge model once one is set; without one they stay ungraded', async () => {
    const e1 = first.cases.find((c: any) => c.title.startsWith('E1'));
    expect(e1.criteria).toEqual([{ criterion: 'Escalates the alert', met: null, explanation: 'No judge model is set (PUT /api/evaluation-settings): the criteria were not graded' }]);

    const unknown = await t.app.inject({ method: 'PUT', url: '/api/evaluation-settings', headers: admin, payload: { judgeModelAlias: 'nope' } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'judgeModelAlias', message: 'no model alias "nope" is configured', code: 'unknown_reference', location: 'body' }] });
    await configureModel(t, t.orgA.apiKey.key, { name: 'judge', type: 'openai-compatible', baseUrl: openai.url, alias: 'judge', modelId: 'judge-model' });
    const set = await t.app.inject({ method: 'PUT', url: '/api/evaluation-settings', headers: admin, payload: { judgeModelAlias: 'judge' } });
    expect(set.json()).toEqual({ judgeModelAlias: 'judge' });
  });

  it('compares two evaluations of the dataset: the cases whose verdict changed, fixed or broke', async () => {
    const agent = (await t.app.inject({ url: `/api/agents/${agentId}`, headers: admin })).json();
    const { id: _id, organizationId: _o, warnings: _w, createdAt: _c, updatedAt: _u, version: _v, managedBy: _m, managedSource: _s, driftedFromCodeAt: _d, ...fields } = agent;
    const put = await t.app.inject({ method: 'PUT', url: `/api/agents/${agentId}`, headers: admin, payload: { ...fields, systemPrompt: 'You are triage v2.' } });
    expect(put.statusCode, put.body).toBe(200);
    const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/evaluations`, headers: admin, payload: { datasetId } });
    const second = await waitForEvaluation(res.json().id);
    expect(second.summary.correct).toBe(3);
    // Each evaluation names the agent version it ran: the edit made the next one.
    expect(second.agentVersion).toBe(first.agentVersion + 1);
    // Graded by the judge now.
    expect(second.cases.find((c: any) => c.title.startsWith('E1')).criteria).toEqual([{ criterion: 'Escalates the alert', met: true, explanation: 'It did so.' }]);

    const cmp = await t.app.inject({ url: `/api/evaluations/compare?a=${first.id}&b=${second.id}`, headers: admin });
    expect(cmp.statusCode, cmp.body).toBe(200);
    expect(cmp.json().changed.map((c: any) => [c.title.slice(0, 2), c.a.verdict, c.b.verdict, c.change])).toEqual([
      ['F2', 'escalate', 'false_positive', 'fixed'],
      ['B1', 'benign', null, 'broke'],
    ]);
    const list = await t.app.inject({ url: `/api/agents/${agentId}/evaluations`, headers: admin });
    expect(list.json().evaluations.map((e: any) => e.id)).toEqual([second.id, first.id]);
  }, EVAL_LIMIT);

  it('judges a real run on the agent\'s acceptance criteria; a failed criterion is sent as run.criteria_failed; runs filter by score', async () => {
    const id = await createAgent(t, t.orgA.apiKey.key, {
      name: 'Graded',
      systemPrompt: 'You are graded v1.',
      acceptanceCriteria: ['Explains the verdict', 'never closes without evidence'],
      notifyCriteriaFailed: true,
      outputDestinationIds: [destinationId],
    });
    const started = await t.app.inject({ method: 'POST', url: `/api/agents/${id}/run-async`, headers: admin, payload: { input: 'Check 203.0.113.9' } });
    const runId = started.json().runId as string;
    await waitForRun(t, t.orgA.apiKey.key, id, runId, ['done', 'error', 'interrupted'], 60_000);
    // One 60 s bound for both waits below (the test's own limit is EVAL_LIMIT).
    const deadline = Date.now() + 60_000;
    const polling = () => ({ timeoutMs: Math.max(0, deadline - Date.now()), everyMs: 100 });
    const run = await until(
      'the run to be judged',
      async () => {
        const judged: Record<string, any> = (await t.app.inject({ url: `/api/agent-runs/${runId}`, headers: admin })).json();
        return judged.evalScore !== null && judged;
      },
      polling(),
    );
    expect(run).toMatchObject({
      evalScore: 25,
      evalExplanation: 'Missed a criterion.',
      acceptanceCriteriaResults: [
        { criterion: 'Explains the verdict', met: true, explanation: 'It did so.' },
        { criterion: 'never closes without evidence', met: false, explanation: 'It did.' },
      ],
    });
    const below = await t.app.inject({ url: `/api/agent-runs?evalScoreBelow=50`, headers: admin });
    expect(below.json().runs.map((r: any) => r.id)).toEqual([runId]);
    expect((await t.app.inject({ url: `/api/agent-runs?evalScoreBelow=25`, headers: admin })).json().totalCount).toBe(0);

    const failed = await until('the run.criteria_failed webhook', () => receiver.verified.find((v) => v.body.type === 'run.criteria_failed'), polling());
    expect(failed?.body).toMatchObject({ type: 'run.criteria_failed', data: { runId, evalScore: 25, failedCriteria: [{ criterion: 'never closes without evidence', met: false }] } });
  }, EVAL_LIMIT);

  it('answers 403 with the missing permissions, 404 for unknown or foreign ids, 400 for bad references', async () => {
    const reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read']);
    const denied = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/evaluations`, headers: bearer(reader.key), payload: { datasetId } });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.execute', 'alert.read'] });
    const noAlerts = await t.app.inject({ method: 'POST', url: `/api/evaluation-datasets/${datasetId}/cases/from-alerts`, headers: bearer(reader.key), payload: { alertIds: ['RMP-1'] } });
    expect(noAlerts.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.manage', 'alert.read'] });

    const foreign = bearer(t.orgB.apiKey.key);
    expect((await t.app.inject({ url: `/api/evaluations/${first.id}`, headers: foreign })).json()).toEqual({ error: 'Evaluation not found' });
    expect((await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/evaluations`, headers: foreign, payload: { datasetId } })).json()).toEqual({ error: 'Agent not found' });
    const unknownDataset = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/evaluations`, headers: admin, payload: { datasetId: '00000000-0000-7000-8000-000000000000' } });
    expect(unknownDataset.statusCode).toBe(400);
    expect(unknownDataset.json().issues[0]).toMatchObject({ path: 'datasetId', code: 'unknown_reference' });
    const version = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/evaluations`, headers: admin, payload: { datasetId, version: 99 } });
    expect(version.statusCode).toBe(400);
    expect(version.json().issues[0]).toMatchObject({ path: 'version', code: 'unknown_reference' });
    const otherDataset = (await t.app.inject({ method: 'POST', url: '/api/evaluation-datasets', headers: admin, payload: { name: 'Other', cases: [alertCase('E1', 'escalate')] } })).json().id;
    const e3 = (await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/evaluations`, headers: admin, payload: { datasetId: otherDataset } })).json().id;
    const cmp = await t.app.inject({ url: `/api/evaluations/compare?a=${first.id}&b=${e3}`, headers: admin });
    expect(cmp.statusCode).toBe(400);
    expect(cmp.json()).toEqual({ error: 'The two evaluations are of different datasets: compare evaluations of the same dataset' });
    await waitForEvaluation(e3);
  });

  it('makes labelled cases of alerts a person closed: payload, timeline up to triage, the disposition as the label', async () => {
    const alert = async (title: string, status?: string) => {
      const created = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: admin, payload: { title, severity: 'high', payload: { user_name: 'alice', src_ip: '198.51.100.7' } } });
      const a = created.json().alert as { id: string; displayId: string };
      if (status) expect((await t.app.inject({ method: 'POST', url: `/api/alerts/${a.id}/status`, headers: admin, payload: { status, reason: 'checked' } })).statusCode).toBe(200);
      return a;
    };
    const tp = await alert('Impossible travel', 'closed_true_positive');
    const fp = await alert('Scanner noise', 'closed_false_positive');
    const open = await alert('Still open');
    const created = await t.app.inject({ method: 'POST', url: '/api/evaluation-datasets', headers: admin, payload: { name: 'From alerts' } });
    const id = created.json().id as string;
    const res = await t.app.inject({ method: 'POST', url: `/api/evaluation-datasets/${id}/cases/from-alerts`, headers: admin, payload: { alertIds: [tp.displayId, fp.id, open.id, 'RMP-9999'] } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      added: 2,
      skipped: [
        { ref: open.displayId, reason: 'the alert is open, not closed' },
        { ref: 'RMP-9999', reason: 'no such alert' },
      ],
      caseCount: 2,
    });
    const again = await t.app.inject({ method: 'POST', url: `/api/evaluation-datasets/${id}/cases/from-alerts`, headers: admin, payload: { filter: { limit: 10 } } });
    // Each skipped alert by the id a person reads (issue 47 item 9), newest first as the filter takes them.
    expect(again.json()).toEqual({ added: 0, skipped: [{ ref: fp.displayId, reason: 'already in the dataset' }, { ref: tp.displayId, reason: 'already in the dataset' }], caseCount: 2 });

    const dataset = (await t.app.inject({ url: `/api/evaluation-datasets/${id}`, headers: admin })).json();
    expect(dataset.labels).toEqual({ escalate: 1, false_positive: 1, benign: 0, unlabelled: 0 });
    const fromTp = dataset.cases.find((c: any) => c.sourceAlertId === tp.id);
    expect(fromTp).toMatchObject({ expected: { disposition: 'escalate' }, tags: ['from-alert', tp.displayId], alert: { title: 'Impossible travel', severity: 'high', payload: { user_name: 'alice', src_ip: '198.51.100.7' } } });
    // The timeline as it was before anyone triaged: the person's closing is not in it.
    expect(fromTp.alert.timeline.map((e: any) => e.kind)).toEqual(['created', 'not_routed']);
  });

  it('every endpoint: 403 naming the missing permissions without them, 404 for another organization\'s ids', async () => {
    const nobody = bearer((await userWithPermissions(t.database.db, t.orgA.organization.id, [])).key);
    const foreign = bearer(t.orgB.apiKey.key);
    const ds = `/api/evaluation-datasets/${datasetId}`;
    const body = { name: 'X', cases: [] };
    const endpoints: Array<[string, string, unknown, string[], string]> = [
      ['GET', '/api/evaluation-datasets', undefined, ['agent.read'], ''],
      ['POST', '/api/evaluation-datasets', body, ['agent.manage', 'alert.read'], ''],
      ['GET', ds, undefined, ['agent.read', 'alert.read'], 'Dataset not found'],
      ['PUT', ds, body, ['agent.manage', 'alert.read'], 'Dataset not found'],
      ['DELETE', ds, undefined, ['agent.manage'], 'Dataset not found'],
      ['POST', `${ds}/cases/from-alerts`, { alertIds: ['RMP-1'] }, ['agent.manage', 'alert.read'], 'Dataset not found'],
      ['POST', `/api/agents/${agentId}/evaluations`, { datasetId }, ['agent.execute', 'alert.read'], 'Agent not found'],
      ['GET', `/api/agents/${agentId}/evaluations`, undefined, ['agent.read'], 'Agent not found'],
      ['GET', `/api/evaluations/${first.id}`, undefined, ['agent.read', 'alert.read'], 'Evaluation not found'],
      ['POST', `/api/evaluations/${first.id}/cancel`, undefined, ['agent.execute', 'alert.read'], 'Evaluation not found'],
      ['GET', `/api/evaluations/compare?a=${first.id}&b=${first.id}`, undefined, ['agent.read', 'alert.read'], 'Evaluation not found'],
      ['GET', '/api/evaluation-settings', undefined, ['agent.read'], ''],
      ['PUT', '/api/evaluation-settings', { judgeModelAlias: null }, ['agent.manage'], ''],
    ];
    for (const [method, url, payload, missingPerms, notFound] of endpoints) {
      const req = { method: method as 'GET', url, ...(payload !== undefined ? { payload: payload as object } : {}) };
      const denied = await t.app.inject({ ...req, headers: nobody });
      expect({ url: `${method} ${url}`, status: denied.statusCode, body: denied.json() }).toEqual({ url: `${method} ${url}`, status: 403, body: { error: 'Missing required permissions', missingPerms } });
      if (!notFound) continue;
      const other = await t.app.inject({ ...req, headers: foreign });
      expect({ url: `${method} ${url}`, status: other.statusCode, body: other.json() }).toEqual({ url: `${method} ${url}`, status: 404, body: { error: notFound } });
    }
    const imported = await t.app.inject({ method: 'POST', url: `${ds}/cases/import`, headers: { ...foreign, 'content-type': 'application/x-ndjson' }, payload: '{}' });
    expect([imported.statusCode, imported.json()]).toEqual([404, { error: 'Dataset not found' }]);
    const ended = await t.app.inject({ method: 'POST', url: `/api/evaluations/${first.id}/cancel`, headers: admin });
    expect([ended.statusCode, ended.json()]).toEqual([409, { error: 'The evaluation is already done' }]);
    const badId = await t.app.inject({ url: '/api/evaluations/not-a-uuid', headers: admin });
    expect(badId.statusCode).toBe(400);
  });
});
