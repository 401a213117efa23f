import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { createGuardedClient } from '../../src/platform/outbound/index.js';
import { buildToolSet } from '../../src/modules/tools/toolset.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { configureModel, createAgent, startRunWorker, waitForRun } from '../support/agents.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakes/openai-server.js';
import { startFakeMcp, type FakeMcp } from '../support/fakes/mcp-server.js';

/** Runs with the service's real tool set: built-in tools checked against the run's user, MCP tools over HTTP. */
let t: TestContext;
let key: string;
let openai: FakeOpenAI;
let mcp: FakeMcp;
let worker: WorkerRunner;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = t.orgA.apiKey.key;
  openai = await startFakeOpenAI();
  mcp = await startFakeMcp({ token: 'mcp-token' });
  await configureModel(t, key, { name: 'fake', type: 'openai-compatible', baseUrl: openai.url, alias: 'default', modelId: 'local-model' });
  const server = await t.app.inject({ method: 'POST', url: '/api/mcp-servers', headers: bearer(key), payload: { name: 'inventory', url: mcp.url, token: 'mcp-token' } });
  expect(server.statusCode, server.body).toBe(200);
  const deps = { db: t.database.db, secrets: t.secrets, http: createGuardedClient({ allowPrivateNetworks: true, retries: 0 }), logger: pino({ level: 'silent' }) };
  worker = await startRunWorker(t, (ctx, names) => buildToolSet(deps, ctx, names));
});
afterAll(async () => {
  await worker?.stop();
  await openai?.close();
  await mcp?.close();
  await t?.close();
});

describe('runs with the real tool set', () => {
  it('calls an MCP tool and a built-in tool, and reports a missing permission as a tool error', async () => {
    openai.setScript([
      {
        toolCalls: [
          { name: 'mcp__inventory__lookup_asset', args: { hostname: 'web-01.corp.example' } },
          { name: 'record_indicator_check', args: { indicatorId: '00000000-0000-7000-8000-000000000000', outcome: 'found' } },
        ],
      },
      { text: 'web-01 belongs to platform-team.' },
    ]);
    // The fake server declares no annotations, so its tool would wait for approval (docs/approvals.md): allowed here, as a team allows a lookup.
    const agentId = await createAgent(t, key, { toolNames: ['mcp:inventory/lookup_asset', 'record_indicator_check'], toolPolicies: { 'mcp:inventory/lookup_asset': 'allow' } });
    // The run acts as a user who may execute agents and use tools, but not change intel.
    const runner = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read', 'agent.execute', 'tool.use', 'intel.read']);
    const started = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async`, headers: bearer(runner.key), payload: { input: 'who owns web-01?' } });
    const runId = started.json().runId as string;
    expect(await waitForRun(t, key, agentId, runId)).toEqual({ status: 'done' });

    const result = (await t.app.inject({ url: `/api/agents/${agentId}/run-async/${runId}/result`, headers: bearer(key) })).json();
    expect(result.finalAssistantMessage).toBe('web-01 belongs to platform-team.');
    const [asset, check] = result.allToolResultsReceived;
    expect(asset).toMatchObject({ toolName: 'mcp__inventory__lookup_asset', isError: false });
    expect(JSON.stringify(asset.result)).toContain('owner=platform-team');
    expect(check).toMatchObject({ toolName: 'record_indicator_check', isError: true });
    expect(check.result).toMatch(/intel\.manage/);
    expect(mcp.calls).toEqual([expect.objectContaining({ name: 'lookup_asset', arguments: { hostname: 'web-01.corp.example' }, authorization: 'Bearer mcp-token' })]);
    // The model was offered exactly the agent's tools.
    const offered = openai.requests[0]!.body.tools?.map((x) => (x as { function: { name: string } }).function.name).sort();
    expect(offered).toEqual(['mcp__inventory__lookup_asset', 'record_indicator_check']);
  });

  it('fails the run clearly when an MCP server is unreachable', async () => {
    const dead = await startFakeMcp();
    const url = dead.url;
    await dead.close();
    await t.app.inject({ method: 'POST', url: '/api/mcp-servers', headers: bearer(key), payload: { name: 'gone', url } });
    const agentId = await createAgent(t, key, { toolNames: ['mcp:gone/*'] });
    const runId = (await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async`, headers: bearer(key), payload: {} })).json().runId as string;
    const status = await waitForRun(t, key, agentId, runId);
    expect(status.status).toBe('error');
    expect(status.statusMessage).toMatch(/^Tools unavailable: .*gone/);
  });
});
