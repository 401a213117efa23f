import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../support/fakes/http-server.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakes/openai-server.js';
import { Service, freePort, postgresProcessesFor, until } from './service.js';

/**
 * Issue 35, points 1, 3 and 4, on a real `rampart start` (embedded PostgreSQL) killed with
 * SIGKILL: a run whose worker dies on both attempts still ends; deliveries are not queued
 * behind a run backlog; a delivery attempt cut off by a crash stays in the delivery log.
 * The dead-worker delay is 4 s here (RAMPART_DEAD_WORKER_AFTER_SECONDS) to keep this short.
 */
const KEY = `rmp_chaos035_${'R'.repeat(43)}`;
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-chaos35-'));
let service: Service;
let fast: FakeOpenAI;
let slow: FakeOpenAI;
let receiver: Awaited<ReturnType<typeof startServer>>;
/** The receiver holds the first request to `/hang` open (its worker is killed meanwhile). */
const held: http.ServerResponse[] = [];

async function api(method: string, url: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${service.url}${url}`, { method, headers: body === undefined ? { authorization: auth.authorization } : auth, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

async function ok(method: string, url: string, body?: unknown): Promise<any> {
  const r = await api(method, url, body);
  expect(r.status, `${method} ${url}: ${JSON.stringify(r.json)}`).toBe(200);
  return r.json;
}

async function restart(): Promise<void> {
  await service.kill9();
  service.log = '';
  await service.start();
}

beforeAll(async () => {
  fast = await startFakeOpenAI({ script: () => ({ text: 'Triaged: benign.', delayMs: 600 }) });
  // Slower than the test: the run is always mid-call when its worker is killed.
  slow = await startFakeOpenAI({ script: () => ({ text: 'too late', delayMs: 120_000 }) });
  receiver = await startServer((req, res) => {
    if (req.url === '/hang' && receiver.requests.filter((r) => r.url === '/hang').length === 1) {
      held.push(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  service = new Service(dataDir, await freePort(), {
    RAMPART_BOOTSTRAP_API_KEY: KEY,
    RAMPART_ALLOW_PRIVATE_NETWORKS: 'true',
    RAMPART_RATE_LIMIT_PER_MINUTE: '0',
    RAMPART_WORKER_CONCURRENCY: '2',
    RAMPART_DEAD_WORKER_AFTER_SECONDS: '4',
  });
  await service.start();
  for (const [alias, server] of [['default', fast], ['slow', slow]] as const) {
    const provider = await ok('POST', '/api/model-providers', { name: alias, type: 'openai', baseUrl: server.url, apiKey: 'sk-test' });
    await ok('PUT', `/api/model-aliases/${alias}`, { providerId: provider.id, modelId: 'gpt-4o-mini' });
  }
});

afterAll(async () => {
  await service?.kill9();
  for (const pid of postgresProcessesFor(dataDir)) process.kill(pid, 'SIGKILL');
  for (const res of held) res.destroy();
  await Promise.all([receiver?.close(), fast?.close(), slow?.close()]);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function destination(name: string, urlPath: string): Promise<string> {
  return (await ok('POST', '/api/output-destinations', { type: 'webhook', name, config: { url: `${receiver.url}${urlPath}`, authType: 'bearer' }, token: 'receiver-token' })).id;
}

describe('deliveries under a run backlog (point 3)', () => {
  it('a run\'s output leaves as soon as a worker slot frees, ahead of the runs still waiting', async () => {
    const dest = await destination('Backlog SOAR', '/backlog');
    const agent = await ok('POST', '/api/agents', { name: 'Backlog agent', systemPrompt: 'Triage.', outputDestinationIds: [dest] });
    const runIds: string[] = [];
    // Two worker slots, twelve 0.6 s runs queued at once: a backlog of about 3.6 s.
    for (let i = 0; i < 12; i++) runIds.push((await ok('POST', `/api/agents/${agent.id}/run-async`, { input: { i } })).runId);
    await until('every backlog delivery to succeed', async () => {
      const [row] = await service.query<{ n: number }>(`SELECT count(*)::int AS n FROM destination_deliveries WHERE destination_id = $1 AND status = 'succeeded'`, [dest]);
      return row!.n === 12;
    }, 90_000);
    // The first delivery's send, against the runs' starts: with deliveries queued behind the
    // runs (first in, first out), every run of the backlog started before it.
    const [first] = await service.query<{ at: Date }>(`SELECT min(first_attempt_at) AS at FROM destination_deliveries WHERE destination_id = $1`, [dest]);
    const starts = await service.query<{ startedAt: Date }>(`SELECT started_at AS "startedAt" FROM agent_runs WHERE id = ANY($1::uuid[])`, [runIds]);
    const startedAfter = starts.filter((r) => r.startedAt > first!.at).length;
    process.stdout.write(`chaos: runs of the backlog started after the first delivery left: ${startedAfter} of 12\n`);
    expect(startedAfter).toBeGreaterThanOrEqual(5);
    expect(receiver.requests.filter((r) => r.url === '/backlog')).toHaveLength(12);
  });
});

describe('a delivery cut off by a crash (point 4)', () => {
  it('keeps the interrupted attempt in the log, and the retry succeeds with the same idempotency id', async () => {
    const dest = await destination('Hanging SOAR', '/hang');
    const agent = await ok('POST', '/api/agents', { name: 'Crash-send agent', systemPrompt: 'Triage.', outputDestinationIds: [dest] });
    await ok('POST', `/api/agents/${agent.id}/run-async`, { input: { x: 1 } });
    await until('the receiver to hold the first send', async () => held.length === 1);
    await restart();
    const delivery = await until('the delivery to succeed after the restart', async () => {
      const d = (await ok('GET', `/api/output-destinations/${dest}/deliveries`)).deliveries[0];
      return d?.status === 'succeeded' ? d : undefined;
    }, 60_000);
    expect(delivery.attemptCount).toBe(2);
    expect(delivery.attempts).toHaveLength(2);
    expect(delivery.attempts[0]).toMatchObject({ attempt: 1, outcome: 'interrupted', responseStatus: null, durationMs: null });
    expect(delivery.attempts[0].error).toMatch(/worker stopped during this attempt/);
    expect(delivery.attempts[1]).toMatchObject({ attempt: 2, outcome: 'succeeded', responseStatus: 200 });
    const sends = receiver.requests.filter((r) => r.url === '/hang');
    expect(sends).toHaveLength(2);
    expect(sends[1]!.headers['webhook-id']).toBe(sends[0]!.headers['webhook-id']);
  });
});

describe('a run whose worker dies on both attempts (point 1)', () => {
  it('ends in error with the reason; the active-runs gauge drops and interrupting answers 409', async () => {
    const agent = await ok('POST', '/api/agents', { name: 'Slow agent', systemPrompt: 'Think long.', modelAlias: 'slow', maxDurationMs: 120_000 });
    const { runId } = await ok('POST', `/api/agents/${agent.id}/run-async`, { input: { slow: true } });
    for (let attempt = 1; attempt <= 2; attempt++) {
      await until(`attempt ${attempt} to be mid model call`, async () => {
        const run = await ok('GET', `/api/agent-runs/${runId}`);
        return run.status === 'running' && run.attemptCount === attempt && slow.requests.length >= attempt;
      }, 60_000);
      await restart();
    }
    const run = await until('the run to end', async () => {
      const r = await ok('GET', `/api/agent-runs/${runId}`);
      return r.status !== 'running' && r.status !== 'waiting' ? r : undefined;
    }, 60_000);
    expect(run.status).toBe('error');
    expect(run.statusMessage).toMatch(/job failed for good.*stopped reporting/);
    expect(run.finishedAt).not.toBeNull();
    const interrupt = await api('POST', `/api/agents/${agent.id}/run-async/${runId}/interrupt`);
    expect(interrupt.status).toBe(409);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/rampart_agent_runs_active\{status="running"\} 0/);
    expect(await service.stop()).toBe(0);
  });
});
