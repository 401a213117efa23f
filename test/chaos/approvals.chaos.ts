import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI, type OpenAIRequest } from '../support/fakes/openai-server.js';
import { startFakeMcp, type FakeMcp } from '../support/fakes/mcp-server.js';
import { randomBytes } from 'node:crypto';
import { Service, freePort, postgresProcessesFor, until } from './service.js';

/**
 * Issue 43, "exactly once" under kill -9 of the worker process: a real `rampart serve` (the API,
 * on its embedded PostgreSQL) and a real `rampart worker` on that database, the worker killed with
 * SIGKILL and started again (the API and the database stay up, as in production where workers
 * are their own processes). A run waiting for approval loses nothing and calls nothing when
 * the worker dies; an approved call cut off mid-flight is never made a second time, its
 * request ends `outcome_unknown` and the run ends (the model told so) — no run is left
 * non-final without a pending request. The MCP server is the SDK's own; its `isolate_host`
 * blocks (never answers) while `blockIsolation` is set, so the kill lands inside the call.
 */
const KEY = `rmp_chaos043_${'A'.repeat(43)}`;
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-chaos43-'));
const workerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-chaos43-worker-'));
let service: Service;
let worker: Service;
let openai: FakeOpenAI;
let mcp: FakeMcp;
let blockIsolation = false;
let agentId: string;

async function ok(method: string, url: string, body?: unknown): Promise<any> {
  const res = await fetch(`${service.url}${url}`, { method, headers: body === undefined ? { authorization: auth.authorization } : auth, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  expect(res.status, `${method} ${url}: ${text}`).toBe(200);
  return text ? JSON.parse(text) : null;
}

async function restartWorker(): Promise<void> {
  await worker.kill9();
  worker.log = '';
  await worker.start();
}

/** The model asks to isolate the host, and answers in words once it has the tool's result (or the refusal). */
function model(req: OpenAIRequest) {
  const messages = (req.body.messages ?? []) as Array<{ role: string; content?: unknown }>;
  const told = messages.find((m) => m.role === 'tool');
  if (!told) return { text: 'web-01 beacons to a known C2; isolating it.', toolCalls: [{ name: 'mcp__edr__isolate_host', args: { hostname: 'web-01', ticket: 'INC-4711' } }] };
  return { text: `Noted: ${JSON.stringify(told.content).slice(0, 200)}` };
}

const isolateCalls = () => mcp.calls.filter((c) => c.name === 'isolate_host');
const runOf = (runId: string) => ok('GET', `/api/agent-runs/${runId}`);
const approvalsOf = async (runId: string) => (await ok('GET', `/api/approvals?runId=${runId}`)).approvals as Array<{ id: string; status: string; outcome: unknown }>;

beforeAll(async () => {
  openai = await startFakeOpenAI({ script: model });
  mcp = await startFakeMcp({
    tools: [
      {
        name: 'isolate_host',
        description: 'Isolate a host from the network',
        inputSchema: { hostname: z.string(), ticket: z.string() },
        annotations: { destructiveHint: true },
        handler: ({ hostname }) => (blockIsolation ? new Promise(() => {}) : { content: [{ type: 'text', text: `${String(hostname)} isolated` }] }),
      },
    ],
  });
  const common = { RAMPART_SECRET_KEY: randomBytes(32).toString('base64'), RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', RAMPART_DEAD_WORKER_AFTER_SECONDS: '3' };
  service = new Service(dataDir, await freePort(), { ...common, RAMPART_BOOTSTRAP_API_KEY: KEY, RAMPART_RATE_LIMIT_PER_MINUTE: '0' }, 'serve');
  await service.start();
  const pg = JSON.parse(fs.readFileSync(path.join(dataDir, 'embedded-pg.json'), 'utf8')) as { port: number; password: string };
  const databaseUrl = `postgres://rampart:${encodeURIComponent(pg.password)}@127.0.0.1:${pg.port}/rampart`;
  worker = new Service(workerDir, await freePort(), { ...common, DATABASE_URL: databaseUrl, RAMPART_WORKER_CONCURRENCY: '2' }, 'worker');
  await worker.start();
  const provider = await ok('POST', '/api/model-providers', { name: 'fake', type: 'openai', baseUrl: openai.url, apiKey: 'sk-test' });
  await ok('PUT', '/api/model-aliases/default', { providerId: provider.id, modelId: 'gpt-4o-mini' });
  await ok('POST', '/api/mcp-servers', { name: 'edr', url: mcp.url });
  agentId = (await ok('POST', '/api/agents', { name: 'EDR responder', systemPrompt: 'Contain threats.', toolNames: ['mcp:edr/*'], maxDurationMs: 60_000 })).id;
});

afterAll(async () => {
  await worker?.kill9();
  await service?.kill9();
  for (const pid of postgresProcessesFor(dataDir)) process.kill(pid, 'SIGKILL');
  await Promise.all([openai?.close(), mcp?.close()]);
  for (const dir of [dataDir, workerDir]) fs.rmSync(dir, { recursive: true, force: true });
});

async function runAwaitingApproval(): Promise<{ runId: string; approvalId: string }> {
  const { runId } = await ok('POST', `/api/agents/${agentId}/run-async`, { input: 'web-01 beacons to 203.0.113.50' });
  await until('the run to await approval', async () => (await runOf(runId)).status === 'awaiting_approval', 30_000, 100);
  const [approval] = await approvalsOf(runId);
  expect(approval).toMatchObject({ status: 'pending' });
  return { runId, approvalId: approval!.id };
}

describe('kill -9 and approvals (issue 43, exactly once)', () => {
  it('while a run waits: after the restart the request is still pending, the run awaits approval, nothing was called; approval then runs it once', async () => {
    const before = isolateCalls().length;
    const { runId, approvalId } = await runAwaitingApproval();
    await restartWorker();
    // Past the dead-worker delay: a job the killed worker held would have been taken up again by now.
    await new Promise((r) => setTimeout(r, 3_500));
    expect((await runOf(runId)).status).toBe('awaiting_approval');
    expect(await approvalsOf(runId)).toEqual([expect.objectContaining({ id: approvalId, status: 'pending' })]);
    const [jobs] = await service.query<{ n: number }>(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key = 'agent-run:' || $1`, [runId]);
    expect(jobs!.n).toBe(0); // a waiting run holds no job
    expect(isolateCalls().length).toBe(before);

    await ok('POST', `/api/approvals/${approvalId}/approve`, { comment: 'confirmed with the owner' });
    const run = await until('the run to end', async () => {
      const r = await runOf(runId);
      return r.status === 'done' || r.status === 'error' ? r : undefined;
    }, 30_000, 100);
    expect(run.status).toBe('done');
    expect(isolateCalls().slice(before)).toEqual([expect.objectContaining({ arguments: { hostname: 'web-01', ticket: 'INC-4711' } })]);
    expect(await approvalsOf(runId)).toEqual([expect.objectContaining({ status: 'executed' })]);
  });

  it('while an approved call executes: no second call, the request ends outcome_unknown, the run ends with the model told so', async () => {
    const before = isolateCalls().length;
    const { runId, approvalId } = await runAwaitingApproval();
    blockIsolation = true;
    await ok('POST', `/api/approvals/${approvalId}/approve`, {});
    await until('the approved call to reach the MCP server', async () => isolateCalls().length === before + 1, 30_000, 50);
    expect((await approvalsOf(runId))[0]!.status).toBe('executing');
    await restartWorker();
    blockIsolation = false;

    const run = await until('the run to reach a final state', async () => {
      const r = await runOf(runId);
      return ['done', 'error', 'interrupted'].includes(r.status) ? r : undefined;
    }, 45_000, 100);
    expect(run.status).toBe('done');
    expect(isolateCalls().length).toBe(before + 1); // never called again
    const [approval] = await approvalsOf(runId);
    expect(approval).toMatchObject({ status: 'outcome_unknown', outcome: { error: expect.stringMatching(/^outcome unknown/) } });
    const result = await ok('GET', `/api/agents/${agentId}/run-async/${runId}/result`);
    expect(result.finalAssistantMessage).toMatch(/outcome unknown/);

    // No run anywhere is left non-final without a pending request.
    const stranded = await service.query<{ id: string; status: string }>(
      `SELECT r.id, r.status FROM agent_runs r
        WHERE r.status NOT IN ('done', 'error', 'interrupted')
          AND NOT EXISTS (SELECT 1 FROM tool_approvals a WHERE a.run_id = r.id AND a.status = 'pending')`,
    );
    expect(stranded).toEqual([]);
  });
});
