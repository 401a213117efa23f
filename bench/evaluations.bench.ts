/**
 * Evaluations (issue 31): an evaluation of 500 alert cases at concurrency 16 against a model that
 * answers each call in 50 ms must finish in under 60 s, and the API must stay responsive
 * meanwhile. The API is the real app as `rampart serve` in a child process; the worker (the
 * service's job catalog, src/jobs.ts, concurrency 16) and the scripted OpenAI-compatible model
 * (test/support/fakes/openai-server.ts) run in this process. Each case is two model calls (the
 * agent sets the shadow alert's status, then answers). While it runs, GET /api/evaluations/{id}
 * and GET /api/agents are sampled every 100 ms.
 *
 * Knobs: BENCH_EVAL_CASES (500; quick 60), BENCH_EVAL_CONCURRENCY (16), BENCH_EVAL_MODEL_MS (50).
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { buildJobCatalog } from '../src/jobs.js';
import { createOrganization } from '../src/modules/organizations/index.js';
import { startWorkers } from '../src/platform/jobs/runner.js';
import { createGuardedClient } from '../src/platform/outbound/index.js';
import { createSecretBox } from '../src/platform/secrets.js';
import { startFakeOpenAI } from '../test/support/fakes/openai-server.js';
import { call } from './support/api-call.js';
import { startBenchDatabase } from './support/db.js';
import { envNumber, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { startRampartServer, waitReady } from './support/http-children.js';
import { table } from './support/report.js';
import { percentile } from './support/stats.js';

export const TARGETS = { evaluationSeconds: 60, apiP95Ms: 250 } as const;
const STATUSES = ['escalated', 'closed_false_positive', 'closed_benign'] as const;
const LABELS = ['escalate', 'false_positive', 'benign'] as const;

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const cases = envNumber('BENCH_EVAL_CASES', ctx.quick ? 60 : 500);
  const concurrency = envNumber('BENCH_EVAL_CONCURRENCY', 16);
  const modelMs = envNumber('BENCH_EVAL_MODEL_MS', 50);
  const database = await startBenchDatabase('evaluations');
  const model = await startFakeOpenAI({
    script: (req) => {
      const messages = req.body.messages ?? [];
      if (messages.some((m) => m.role === 'tool')) return { text: 'Done.', delayMs: modelMs, usage: { inputTokens: 900, outputTokens: 20 } };
      const n = Number(/Case (\d+)/.exec(String(messages.find((m) => m.role === 'user')?.content ?? ''))?.[1] ?? 0);
      return { toolCalls: [{ name: 'set_alert_status', args: { status: STATUSES[n % 3], reason: 'bench' } }], delayMs: modelMs, usage: { inputTokens: 800, outputTokens: 30 } };
    },
  });
  const logger = pino({ level: process.env.BENCH_LOG_LEVEL ?? 'warn' });
  const secretKey = randomBytes(32);
  let workers: Awaited<ReturnType<typeof startWorkers>> | null = null;
  try {
    const org = await createOrganization(database.db, { name: 'Bench Org', adminEmail: 'bench@evaluations.test' });
    const server = await startRampartServer(database, { RAMPART_SECRET_KEY: secretKey.toString('base64url'), RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'warn' });
    try {
      await waitReady(server);
      const auth = { authorization: `Bearer ${org.apiKey.key}` };
      const api = server.origin;
      const provider = await call(`${api}/api/model-providers`, 'POST', auth, { name: 'fake', type: 'openai-compatible', baseUrl: model.url, apiKey: null });
      await call(`${api}/api/model-aliases/default`, 'PUT', auth, { providerId: provider.id, modelId: 'bench-model' });
      const agent = await call(`${api}/api/agents`, 'POST', auth, { name: 'Bench triage', systemPrompt: 'Triage the alert.', toolNames: ['get_alert', 'set_alert_status'], maxSteps: 4 });
      const dataset = await call(`${api}/api/evaluation-datasets`, 'POST', auth, {
        name: 'Bench',
        cases: Array.from({ length: cases }, (_, i) => ({
          alert: { title: `Case ${i} suspicious login`, severity: 'high', source: 'bench', payload: { user: `u${i}`, src_ip: `203.0.113.${i % 250}` } },
          expected: { disposition: LABELS[i % 3] },
        })),
      });

      const catalog = buildJobCatalog({ db: database.db, secrets: createSecretBox(secretKey), http: createGuardedClient({ allowPrivateNetworks: true, retries: 0 }), logger });
      workers = await startWorkers({ db: database.db, pool: database.pool, catalog, logger, concurrency, pollIntervalMs: 1000 });

      ctx.log(`evaluating ${cases} cases at concurrency ${concurrency}, model ${modelMs} ms per call`);
      const t0 = performance.now();
      const started = await call(`${api}/api/agents/${agent.id}/evaluations`, 'POST', auth, { datasetId: dataset.id, concurrency });
      const latencies: Record<string, number[]> = { evaluation: [], agents: [] };
      let evaluation: Record<string, any> = started;
      const deadline = Date.now() + 180_000;
      while (evaluation.status === 'running') {
        if (Date.now() > deadline) throw new Error(`evaluation still running after 180 s: ${JSON.stringify(evaluation.progress)}`);
        await new Promise((r) => setTimeout(r, 100));
        let s = performance.now();
        evaluation = await call(`${api}/api/evaluations/${started.id}`, 'GET', auth);
        latencies.evaluation!.push(performance.now() - s);
        s = performance.now();
        await call(`${api}/api/agents`, 'GET', auth);
        latencies.agents!.push(performance.now() - s);
      }
      const seconds = (performance.now() - t0) / 1000;
      const summary = evaluation.summary;
      if (evaluation.status !== 'done' || summary.finished !== cases || summary.accuracy !== 1) {
        throw new Error(`evaluation ended ${evaluation.status}: ${JSON.stringify(summary).slice(0, 500)}`);
      }
      const rows = Object.entries(latencies).map(([name, lat]) => {
        const sorted = Float64Array.from(lat).sort();
        return [name === 'evaluation' ? 'GET /api/evaluations/{id}' : 'GET /api/agents', String(lat.length), percentile(sorted, 50).toFixed(1), percentile(sorted, 95).toFixed(1), Math.max(...lat).toFixed(1)];
      });
      const apiP95 = Math.max(...Object.values(latencies).map((lat) => percentile(Float64Array.from(lat).sort(), 95)));
      console.log(`\n${table(['sampled during the evaluation', 'requests', 'p50 ms', 'p95 ms', 'max ms'], rows, [1, 2, 3, 4])}`);
      return {
        figures: [
          { name: `evaluation of ${cases} cases, concurrency ${concurrency}, model ${modelMs} ms/call`, value: seconds, unit: 's', digits: 1, target: { value: TARGETS.evaluationSeconds, kind: 'max' } },
          { name: 'API p95 while it runs (worst of the two endpoints)', value: apiP95, unit: 'ms', digits: 1, target: { value: TARGETS.apiP95Ms, kind: 'max' } },
        ],
        notes: [`${model.requests.length} model calls; case p50/p95 latency ${summary.latencyMs.p50}/${summary.latencyMs.p95} ms; worker in the bench process, API in its child`],
        details: { cases, concurrency, modelMs, seconds, summary, rows },
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

export const evaluationsBench: BenchDefinition = { name: 'evaluations', title: 'Evaluation of 500 cases at concurrency 16', run };
