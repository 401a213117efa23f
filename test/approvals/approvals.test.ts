import pino from 'pino';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { createGuardedClient } from '../../src/platform/outbound/index.js';
import { buildToolSet } from '../../src/modules/tools/toolset.js';
import { SCHEDULER_PASSES, serviceEvents, TOOLS } from '../../src/composition.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { configureModel, createAgent, startRunWorker, waitForRun } from '../support/agents.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakes/openai-server.js';
import { startFakeMcp, type FakeMcp } from '../support/fakes/mcp-server.js';

/**
 * Tool policies and approvals (issue 43, docs/approvals.md) through the real API, the real run
 * worker and a real MCP server (the SDK's own) with a read-only lookup_host and a destructive
 * isolate_host.
 */
let t: TestContext;
let key: string;
let openai: FakeOpenAI;
let mcp: FakeMcp;
let worker: WorkerRunner;

const FORBIDDEN = { error: 'Missing required permissions', missingPerms: ['approval.decide'] };

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = t.orgA.apiKey.key;
  openai = await startFakeOpenAI();
  mcp = await startFakeMcp({
    tools: [
      {
        name: 'lookup_host',
        description: 'Look up a host',
        inputSchema: { hostname: z.string() },
        annotations: { readOnlyHint: true },
        handler: ({ hostname }) => ({ content: [{ type: 'text', text: `${String(hostname)}: owner=platform-team` }] }),
      },
      {
        name: 'isolate_host',
        description: 'Isolate a host from the network',
        inputSchema: { hostname: z.string(), reason: z.string().optional() },
        annotations: { destructiveHint: true },
        handler: ({ hostname }) => ({ content: [{ type: 'text', text: `${String(hostname)} isolated` }] }),
      },
    ],
  });
  await configureModel(t, key, { name: 'fake', type: 'openai-compatible', baseUrl: openai.url, alias: 'default', modelId: 'local-model' });
  const server = await t.app.inject({ method: 'POST', url: '/api/mcp-servers', headers: bearer(key), payload: { name: 'edr', url: mcp.url } });
  expect(server.statusCode, server.body).toBe(200);
  const deps = { db: t.database.db, secrets: t.secrets, http: createGuardedClient({ allowPrivateNetworks: true, retries: 0 }), logger: pino({ level: 'silent' }), catalog: TOOLS };
  worker = await startRunWorker(t, (ctx, names) => buildToolSet(deps, ctx, names));
});
afterAll(async () => {
  await worker?.stop();
  await openai?.close();
  await mcp?.close();
  await t?.close();
});

const isolateCalls = () => mcp.calls.filter((c) => c.name === 'isolate_host');

/** A run whose model looks the host up and asks to isolate it, then answers `final`. */
async function runAskingIsolation(agentId: string, final: string) {
  openai.setScript([
    { text: 'web-01 beacons to a known C2; isolating it.', toolCalls: [{ name: 'mcp__edr__lookup_host', args: { hostname: 'web-01' } }, { name: 'mcp__edr__isolate_host', args: { hostname: 'web-01', reason: 'C2 beacon' } }] },
    { text: final },
  ]);
  const started = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async`, headers: bearer(key), payload: { input: 'triage web-01' } });
  expect(started.statusCode, started.body).toBe(200);
  const runId = started.json().runId as string;
  expect((await waitForRun(t, key, agentId, runId, ['awaiting_approval', 'done', 'error'])).status).toBe('awaiting_approval');
  const list = await t.app.inject({ url: `/api/approvals?status=pending&runId=${runId}`, headers: bearer(key) });
  expect(list.statusCode, list.body).toBe(200);
  const [approval] = list.json().approvals;
  return { runId, approval };
}

async function runExpiry() {
  const pass = SCHEDULER_PASSES.find((p) => p.name === 'approval expiry')!;
  await pass.run({ db: t.database.db, logger: pino({ level: 'silent' }), events: serviceEvents(), runGraceMs: 60_000 });
}

describe('approvals', () => {
  it('a destructive MCP call waits, nothing reaches the server, one approval runs it once with the approved arguments', async () => {
    const agentId = await createAgent(t, key, { toolNames: ['mcp:edr/*'] });
    const before = isolateCalls().length;
    const { runId, approval } = await runAskingIsolation(agentId, 'web-01 is isolated.');
    expect(approval).toMatchObject({ toolName: 'mcp:edr/isolate_host', args: { hostname: 'web-01', reason: 'C2 beacon' }, status: 'pending', reason: 'web-01 beacons to a known C2; isolating it.', agentId, runId });
    expect(new Date(approval.expiresAt).getTime() - new Date(approval.requestedAt).getTime()).toBe(3600_000);
    // The read-only lookup ran; the destructive call did not reach the MCP server.
    expect(mcp.calls.filter((c) => c.name === 'lookup_host').length).toBeGreaterThan(0);
    expect(isolateCalls().length).toBe(before);

    const analyst = await userWithPermissions(t.database.db, t.orgA.organization.id, ['approval.read', 'agent.read']);
    const refused = await t.app.inject({ method: 'POST', url: `/api/approvals/${approval.id}/approve`, headers: bearer(analyst.key), payload: {} });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual(FORBIDDEN);
    const otherOrg = await t.app.inject({ method: 'POST', url: `/api/approvals/${approval.id}/approve`, headers: bearer(t.orgB.apiKey.key), payload: {} });
    expect(otherOrg.statusCode).toBe(404);
    expect(otherOrg.json()).toEqual({ error: 'Approval request not found' });
    expect((await t.app.inject({ url: `/api/approvals/${approval.id}`, headers: bearer(t.orgB.apiKey.key) })).statusCode).toBe(404);
    const bad = await t.app.inject({ method: 'POST', url: `/api/approvals/${approval.id}/approve`, headers: bearer(key), payload: { comment: 'x', extra: 1 } });
    expect(bad.statusCode).toBe(400);
    expect((await t.app.inject({ url: '/api/approvals/not-a-uuid', headers: bearer(key) })).statusCode).toBe(400);

    const ok = await t.app.inject({ method: 'POST', url: `/api/approvals/${approval.id}/approve`, headers: bearer(key), payload: { comment: 'confirmed with the owner' } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ status: 'approved', decidedVia: 'api', comment: 'confirmed with the owner' });
    expect((await waitForRun(t, key, agentId, runId)).status).toBe('done');
    expect(isolateCalls().slice(before)).toEqual([expect.objectContaining({ arguments: { hostname: 'web-01', reason: 'C2 beacon' } })]);

    const after = (await t.app.inject({ url: `/api/approvals/${approval.id}`, headers: bearer(key) })).json();
    expect(after).toMatchObject({ status: 'executed', outcome: { result: 'web-01 isolated' } });
    const again = await t.app.inject({ method: 'POST', url: `/api/approvals/${approval.id}/deny`, headers: bearer(key), payload: {} });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: 'This approval request was already decided (executed)', status: 'executed', decidedBy: { name: expect.any(String) } });

    const result = (await t.app.inject({ url: `/api/agents/${agentId}/run-async/${runId}/result`, headers: bearer(key) })).json();
    expect(result.finalAssistantMessage).toBe('web-01 is isolated.');
    expect(result.allToolResultsReceived.map((r: { toolName: string }) => r.toolName).sort()).toEqual(['mcp__edr__isolate_host', 'mcp__edr__lookup_host']);
    const audit = await t.database.db.selectFrom('auditLogs').select(['action', 'metadata']).where('resourceId', '=', approval.id).execute();
    expect(audit).toEqual([{ action: 'approval.approve', metadata: expect.objectContaining({ source: 'api', toolName: 'mcp:edr/isolate_host' }) }]);
  });

  it('a denial gives the model "denied by <user>: <comment>" and zero calls; the run goes on', async () => {
    const agentId = await createAgent(t, key, { toolNames: ['mcp:edr/*'] });
    const before = isolateCalls().length;
    const { runId, approval } = await runAskingIsolation(agentId, 'Understood: web-01 stays online.');
    const denied = await t.app.inject({ method: 'POST', url: `/api/approvals/${approval.id}/deny`, headers: bearer(key), payload: { comment: 'production database, page the owner first' } });
    expect(denied.statusCode, denied.body).toBe(200);
    expect((await waitForRun(t, key, agentId, runId)).status).toBe('done');
    expect(isolateCalls().length).toBe(before);
    const toolMessages = JSON.stringify(openai.requests.at(-1)!.body.messages);
    expect(toolMessages).toMatch(/denied by [^:]+: production database, page the owner first/);
    const result = (await t.app.inject({ url: `/api/agents/${agentId}/run-async/${runId}/result`, headers: bearer(key) })).json();
    expect(result.finalAssistantMessage).toBe('Understood: web-01 stays online.');
  });

  it('expiry is a denial with reason expired: zero calls', async () => {
    const agentId = await createAgent(t, key, { toolNames: ['mcp:edr/*'], approvalSettings: { expiresAfterSeconds: 60 } });
    const before = isolateCalls().length;
    const { runId, approval } = await runAskingIsolation(agentId, 'No one answered; leaving web-01 online.');
    expect(new Date(approval.expiresAt).getTime() - new Date(approval.requestedAt).getTime()).toBe(60_000);
    // The request's time passes (its expiry moved to the past), then the scheduler's pass sees it.
    await t.database.db.updateTable('toolApprovals').set({ expiresAt: new Date(Date.now() - 1000) }).where('id', '=', approval.id).execute();
    const late = await t.app.inject({ method: 'POST', url: `/api/approvals/${approval.id}/approve`, headers: bearer(key), payload: {} });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ status: 'expired' });
    await runExpiry();
    expect((await waitForRun(t, key, agentId, runId)).status).toBe('done');
    expect(isolateCalls().length).toBe(before);
    expect(JSON.stringify(openai.requests.at(-1)!.body.messages)).toMatch(/denied: expired/);
  });

  it('20 concurrent approvals of one request: one execution, 19 answers saying it was decided', async () => {
    const agentId = await createAgent(t, key, { toolNames: ['mcp:edr/*'] });
    const before = isolateCalls().length;
    const { runId, approval } = await runAskingIsolation(agentId, 'Done.');
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.app.inject({ method: 'POST', url: `/api/approvals/${approval.id}/approve`, headers: bearer(key), payload: {} })));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    const conflicts = answers.filter((a) => a.statusCode === 409);
    expect(conflicts).toHaveLength(19);
    for (const c of conflicts) expect(c.json().error).toMatch(/^This approval request was already decided/);
    expect((await waitForRun(t, key, agentId, runId)).status).toBe('done');
    expect(isolateCalls().length).toBe(before + 1);
  });

  it('policies: deny refuses the call, an explicit allow runs a destructive tool, an unlisted tool is refused at write', async () => {
    const denyAgent = await createAgent(t, key, { toolNames: ['mcp:edr/*'], toolPolicies: { 'mcp:edr/isolate_host': 'deny' } });
    const before = isolateCalls().length;
    openai.setScript([{ toolCalls: [{ name: 'mcp__edr__isolate_host', args: { hostname: 'web-02' } }] }, { text: 'Refused.' }]);
    const runId = (await t.app.inject({ method: 'POST', url: `/api/agents/${denyAgent}/run-async`, headers: bearer(key), payload: {} })).json().runId as string;
    expect((await waitForRun(t, key, denyAgent, runId)).status).toBe('done');
    const result = (await t.app.inject({ url: `/api/agents/${denyAgent}/run-async/${runId}/result`, headers: bearer(key) })).json();
    expect(result.allToolResultsReceived[0]).toMatchObject({ isError: true, result: expect.stringMatching(/tool policy/) });
    expect(isolateCalls().length).toBe(before);

    const allowAgent = await createAgent(t, key, { toolNames: ['mcp:edr/*'], toolPolicies: { 'mcp:edr/*': 'allow' } });
    openai.setScript([{ toolCalls: [{ name: 'mcp__edr__isolate_host', args: { hostname: 'web-03' } }] }, { text: 'Isolated.' }]);
    const run2 = (await t.app.inject({ method: 'POST', url: `/api/agents/${allowAgent}/run-async`, headers: bearer(key), payload: {} })).json().runId as string;
    expect((await waitForRun(t, key, allowAgent, run2)).status).toBe('done');
    expect(isolateCalls().length).toBe(before + 1);

    const bad = await t.app.inject({ method: 'POST', url: '/api/agents', headers: bearer(key), payload: { name: 'x', systemPrompt: 'x', toolNames: ['lookup_indicator'], toolPolicies: { http_request: 'allow' } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues[0]).toMatchObject({ path: 'toolPolicies.http_request' });
    const wrongValue = await t.app.inject({ method: 'POST', url: '/api/agents', headers: bearer(key), payload: { name: 'x', systemPrompt: 'x', toolNames: ['http_request'], toolPolicies: { http_request: 'maybe' } } });
    expect(wrongValue.statusCode).toBe(400);
  });

  it('agent versions keep tool policies and approval settings, and their diff shows them', async () => {
    const agentId = await createAgent(t, key, { toolNames: ['mcp:edr/*'] });
    const agent = (await t.app.inject({ url: `/api/agents/${agentId}`, headers: bearer(key) })).json();
    expect(agent).toMatchObject({ toolPolicies: {}, approvalSettings: { expiresAfterSeconds: 3600, approverRoleIds: [], approverUserIds: [], requireSecondPerson: false } });
    const put = await t.app.inject({ method: 'PUT', url: `/api/agents/${agentId}`, headers: bearer(key), payload: { name: 'Agent', systemPrompt: 'You are a SOC analyst.', toolNames: ['mcp:edr/*'], toolPolicies: { 'mcp:edr/lookup_host': 'deny' }, approvalSettings: { requireSecondPerson: true } } });
    expect(put.statusCode, put.body).toBe(200);
    const diff = await t.app.inject({ url: `/api/agents/${agentId}/versions/2/diff`, headers: bearer(key) });
    expect(diff.statusCode, diff.body).toBe(200);
    const fields = (diff.json().changes as Array<{ field: string }>).map((c) => c.field);
    expect(fields).toEqual(expect.arrayContaining(['toolPolicies', 'approvalSettings']));
  });

  it('requireSecondPerson refuses the person who last changed the agent; approvers restrict who decides', async () => {
    const agentId = await createAgent(t, key, { toolNames: ['mcp:edr/*'], approvalSettings: { requireSecondPerson: true } });
    const { runId, approval } = await runAskingIsolation(agentId, 'ok');
    const self = await t.app.inject({ method: 'POST', url: `/api/approvals/${approval.id}/approve`, headers: bearer(key), payload: {} });
    expect(self.statusCode).toBe(403);
    expect(self.json().error).toMatch(/second person/);
    const second = await userWithPermissions(t.database.db, t.orgA.organization.id, ['approval.read', 'approval.decide']);
    const ok = await t.app.inject({ method: 'POST', url: `/api/approvals/${approval.id}/deny`, headers: bearer(second.key), payload: { comment: 'no' } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await waitForRun(t, key, agentId, runId)).status).toBe('done');

    const restricted = await createAgent(t, key, { toolNames: ['mcp:edr/*'], approvalSettings: { approverUserIds: [second.userId] } });
    const r2 = await runAskingIsolation(restricted, 'ok');
    const outsider = await userWithPermissions(t.database.db, t.orgA.organization.id, ['approval.read', 'approval.decide']);
    const no = await t.app.inject({ method: 'POST', url: `/api/approvals/${r2.approval.id}/approve`, headers: bearer(outsider.key), payload: {} });
    expect(no.statusCode).toBe(403);
    expect(no.json().error).toMatch(/approvers/);
    expect((await t.app.inject({ method: 'POST', url: `/api/approvals/${r2.approval.id}/deny`, headers: bearer(second.key), payload: {} })).statusCode).toBe(200);
    expect((await waitForRun(t, key, restricted, r2.runId)).status).toBe('done');
  });
});
