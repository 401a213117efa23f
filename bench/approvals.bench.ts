/**
 * Approvals (issue 43): a run waiting for a person holds no worker slot, job lock or connection,
 * so 1,000 runs awaiting approval must not slow the others. Side by side in one process and one
 * database: the throughput of short runs (one model call each, the model answering in
 * BENCH_APPROVALS_MODEL_MS) with no run waiting, then the same batches with 1,000 runs in
 * `awaiting_approval` (each asked for an `http_request` POST, whose default policy is `approve`).
 * Target: with the waiting runs, ≥ 0.95× the rate without.
 *
 * Each side runs two rounds of BENCH_APPROVALS_RUNS runs (200; quick 40), in the order A B B A
 * (none, waiting, waiting, none: the waiting runs are interrupted through the API before the last),
 * each started through the API at once and timed from the first request to the last run `done`;
 * a side's figure is its rounds' total runs over their total time, after one untimed warm-up
 * round. The API is the real app as `rampart serve` in a child process; the worker (the service's job catalog, src/jobs.ts, concurrency
 * BENCH_APPROVALS_CONCURRENCY, 8) and the scripted OpenAI-compatible model run in this process.
 *
 * Knobs: BENCH_APPROVALS_WAITING (1000; quick 100), BENCH_APPROVALS_RUNS (200; 40),
 * BENCH_APPROVALS_CONCURRENCY (8), BENCH_APPROVALS_MODEL_MS (30).
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { sql } from 'kysely';
import { buildJobCatalog } from '../src/jobs.js';
import { createOrganization } from '../src/modules/organizations/index.js';
import { startWorkers } from '../src/platform/jobs/runner.js';
import { createGuardedClient } from '../src/platform/outbound/index.js';
import { createSecretBox } from '../src/platform/secrets.js';
import { startFakeOpenAI } from '../test/support/fakes/openai-server.js';
import { call } from './support/api-call.js';
import { startBenchDatabase, type BenchDatabase } from './support/db.js';
import { envNumber, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { startRampartServer, waitReady } from './support/http-children.js';
import { table } from './support/report.js';
import { cpuSeconds } from './support/cpu.js';
import { postmasterPid } from './support/http-measure.js';

export const TARGETS = { ratio: 0.95 } as const;
const WAITING_PROMPT = 'Contain the threat.';
const SHORT_PROMPT = 'Answer briefly.';

/** Starts `n` runs of the agent through the API, 25 requests in flight; returns their ids. */
async function startRuns(api: string, auth: Record<string, string>, agentId: string, n: number, label: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 25) {
    const batch = await Promise.all(Array.from({ length: Math.min(25, n - i) }, (_, j) => call(`${api}/api/agents/${agentId}/run-async`, 'POST', auth, { input: `${label} ${i + j}` })));
    ids.push(...batch.map((b) => b.runId as string));
  }
  return ids;
}

/** Polls the database until every run in `ids` is in one of `statuses` (or fails on any other final status). */
async function until(database: BenchDatabase, ids: string[], statuses: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await sql<{ status: string; n: number }>`SELECT status, count(*)::int AS n FROM agent_runs WHERE id = ANY(${ids}::uuid[]) GROUP BY status`.execute(database.db);
    const by = Object.fromEntries(rows.rows.map((r) => [r.status, r.n]));
    const reached = statuses.reduce((s, st) => s + (by[st] ?? 0), 0);
    if (reached === ids.length) return;
    const wrong = Object.keys(by).filter((st) => ['done', 'error', 'interrupted', 'awaiting_approval'].includes(st) && !statuses.includes(st));
    if (wrong.length) throw new Error(`runs ended ${JSON.stringify(by)}, expected ${statuses.join('/')}`);
    if (Date.now() > deadline) throw new Error(`runs still ${JSON.stringify(by)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const waitingCount = envNumber('BENCH_APPROVALS_WAITING', ctx.quick ? 100 : 1000);
  const perRound = envNumber('BENCH_APPROVALS_RUNS', ctx.quick ? 40 : 200);
  const concurrency = envNumber('BENCH_APPROVALS_CONCURRENCY', 8);
  const modelMs = envNumber('BENCH_APPROVALS_MODEL_MS', 30);
  const database = await startBenchDatabase('approvals');
  const model = await startFakeOpenAI({
    script: (req) => {
      const system = JSON.stringify(req.body.messages?.[0] ?? '');
      if (system.includes(WAITING_PROMPT)) {
        return { text: 'Isolating the host through the SOAR.', toolCalls: [{ name: 'http_request', args: { url: 'https://soar.example.com/api/isolate', method: 'POST', body: '{"host":"web-01"}' } }] };
      }
      return { text: 'Benign.', delayMs: modelMs, usage: { inputTokens: 300, outputTokens: 5 } };
    },
  });
  const logger = pino({ level: process.env.BENCH_LOG_LEVEL ?? 'warn' });
  const secretKey = randomBytes(32);
  let workers: Awaited<ReturnType<typeof startWorkers>> | null = null;
  try {
    const org = await createOrganization(database.db, { name: 'Bench Org', adminEmail: 'bench@approvals.test' });
    const server = await startRampartServer(database, { RAMPART_SECRET_KEY: secretKey.toString('base64url'), RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', RAMPART_RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'warn' });
    try {
      await waitReady(server);
      const auth = { authorization: `Bearer ${org.apiKey.key}` };
      const api = server.origin;
      const provider = await call(`${api}/api/model-providers`, 'POST', auth, { name: 'fake', type: 'openai-compatible', baseUrl: model.url, apiKey: null });
      await call(`${api}/api/model-aliases/default`, 'PUT', auth, { providerId: provider.id, modelId: 'bench-model' });
      const waitingAgent = await call(`${api}/api/agents`, 'POST', auth, { name: 'Responder (waits for approval)', systemPrompt: WAITING_PROMPT, toolNames: ['http_request'], approvalSettings: { expiresAfterSeconds: 7 * 24 * 3600 } });
      const shortAgent = await call(`${api}/api/agents`, 'POST', auth, { name: 'Short triage', systemPrompt: SHORT_PROMPT });

      const catalog = buildJobCatalog({ db: database.db, secrets: createSecretBox(secretKey), http: createGuardedClient({ allowPrivateNetworks: true, retries: 0 }), logger });
      workers = await startWorkers({ db: database.db, pool: database.pool, catalog, logger, concurrency, pollIntervalMs: 1000 });

      const pgPid = postmasterPid(database.clusterDir);
      /** CPU seconds of everything a run uses: this process (worker, model), the API child, PostgreSQL. */
      const cpuNow = () => process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6 + (cpuSeconds(server.child.pid) ?? 0) + (cpuSeconds(pgPid, true) ?? 0);
      const cpuMsPerRun: Record<string, number[]> = {};
      const measure = async (side: string, round: number) => {
        const c0 = cpuNow();
        const t0 = performance.now();
        const ids = await startRuns(api, auth, shortAgent.id, perRound, `${side} round ${round}`);
        await until(database, ids, ['done'], 300_000);
        const seconds = (performance.now() - t0) / 1000;
        const cpuMs = ((cpuNow() - c0) * 1000) / perRound;
        (cpuMsPerRun[side.startsWith('none') ? 'none' : 'loaded'] ??= []).push(cpuMs);
        ctx.log(`${side}, round ${round}: ${perRound} runs in ${seconds.toFixed(2)} s (${(perRound / seconds).toFixed(1)} runs/s, ${cpuMs.toFixed(1)} ms CPU per run)`);
        return seconds;
      };
      // A warm-up round (JIT, connections, the model server), not counted.
      await measure('warm-up', 0);
      // A B B A: none waiting, the waiting runs put in place, two rounds with them, the waiting runs
      // ended (interrupted through the API), none waiting again. Drift over the bench (warming
      // up, a neighbour's load) weighs on both sides alike.
      const none: number[] = [await measure('none waiting', 1)];

      ctx.log(`putting ${waitingCount} runs in awaiting_approval`);
      const f0 = performance.now();
      const waiting = await startRuns(api, auth, waitingAgent.id, waitingCount, 'waiting');
      await until(database, waiting, ['awaiting_approval'], 600_000);
      const fillSeconds = (performance.now() - f0) / 1000;
      const [held] = (await sql<{ jobs: number; pending: number }>`SELECT (SELECT count(*)::int FROM graphile_worker.jobs WHERE key = ANY(${waiting.map((id) => `agent-run:${id}`)}::text[])) AS jobs, (SELECT count(*)::int FROM tool_approvals WHERE status = 'pending') AS pending`.execute(database.db)).rows;
      ctx.log(`${waitingCount} runs awaiting approval after ${fillSeconds.toFixed(1)} s: ${held!.pending} pending requests, ${held!.jobs} jobs held`);
      if (held!.jobs !== 0 || held!.pending !== waitingCount) throw new Error(`waiting runs hold ${held!.jobs} jobs, ${held!.pending} pending requests`);

      const loaded: number[] = [];
      for (let r = 1; r <= 2; r++) loaded.push(await measure(`${waitingCount} waiting`, r));

      for (let i = 0; i < waiting.length; i += 25) {
        await Promise.all(waiting.slice(i, i + 25).map((id) => call(`${api}/api/agents/${waitingAgent.id}/run-async/${id}/interrupt`, 'POST', auth)));
      }
      await until(database, waiting, ['interrupted'], 120_000);
      none.push(await measure('none waiting', 2));

      const rate = (s: number[]) => (perRound * s.length) / s.reduce((a, b) => a + b, 0);
      const baseRate = rate(none);
      const loadedRate = rate(loaded);
      const ratio = loadedRate / baseRate;
      const rows = [
        ['none waiting (rounds 1 and 4)', ...none.map((s) => (perRound / s).toFixed(1)), baseRate.toFixed(1)],
        [`${waitingCount} awaiting approval (rounds 2 and 3)`, ...loaded.map((s) => (perRound / s).toFixed(1)), loadedRate.toFixed(1)],
      ];
      console.log(`\n${table(['runs/s of the other runs', 'first', 'second', 'overall'], rows, [1, 2, 3])}`);
      return {
        figures: [
          { name: `other runs with none waiting (2 rounds of ${perRound}, concurrency ${concurrency}, model ${modelMs} ms)`, value: baseRate, unit: 'runs/s', digits: 1 },
          { name: `other runs with ${waitingCount} awaiting approval`, value: loadedRate, unit: 'runs/s', digits: 1 },
          { name: `throughput with ${waitingCount} awaiting approval ÷ with none`, value: ratio, unit: '×', digits: 3, target: { value: TARGETS.ratio, kind: 'min' } },
          // CPU per run moves far less than wall time on a shared machine: the same question, asked of the work done.
          { name: `CPU per other run (worker, API, PostgreSQL), none ÷ with ${waitingCount} waiting`, value: mean(cpuMsPerRun.none!) / mean(cpuMsPerRun.loaded!), unit: '×', digits: 3 },
        ],
        notes: [`CPU per other run: ${mean(cpuMsPerRun.none!).toFixed(1)} ms with none waiting, ${mean(cpuMsPerRun.loaded!).toFixed(1)} ms with ${waitingCount} waiting`, `${waitingCount} runs put in awaiting_approval in ${fillSeconds.toFixed(1)} s; they held ${held!.jobs} jobs; worker in the bench process, API in its child`],
        details: { cpuMsPerRun, waitingCount, perRound, concurrency, modelMs, none, loaded, baseRate, loadedRate, ratio, fillSeconds },
      };
    } finally {
      await server.stop();
    }
  } finally {
    await workers?.stop();
    await model.close();
    await database.close();
  }
}

export const approvalsBench: BenchDefinition = { name: 'approvals', title: '1,000 runs awaiting approval vs none: other runs\' throughput', run };
