import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../support/fakes/http-server.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakes/openai-server.js';
import { Service, freePort, postgresProcessesFor, seededRandom, sleep } from './service.js';

/**
 * Chaos: a real `rampart start` is killed with SIGKILL at random points of an RSS sync (a
 * local feed server), agent runs (the fake OpenAI-compatible server) and a trigger burst, and
 * started again each time. Invariants: it starts every time; no job is lost or has a visible
 * effect twice (no duplicate items, one run per accepted trigger call, every run finishes);
 * no PostgreSQL is left after a clean stop. CHAOS_SEED replays a run's kill points.
 */
const SEED = Number(process.env.CHAOS_SEED ?? 16_2026);
const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 4);
// Within a source's default maxEntries (200): every entry must arrive exactly once.
const FEED_ITEMS = 200;
const KEY = `rmp_chaos001_${'K'.repeat(43)}`;

function rssFeed(n: number): string {
  const items = Array.from({ length: n }, (_, i) =>
    `<item><title>Advisory ${i}: CVE-2026-${1000 + i} exploited</title><link>https://vendor.example/adv/${i}</link><guid>adv-${i}</guid>` +
    `<pubDate>Mon, 23 Nov 2026 10:${String(i % 60).padStart(2, '0')}:00 GMT</pubDate>` +
    `<description>Exploitation of CVE-2026-${1000 + i} seen from 203.0.113.${i % 250} and evil${i}.example.</description></item>`,
  ).join('');
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>Chaos feed</title><link>https://vendor.example</link><description>x</description>${items}</channel></rss>`;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-chaos-'));
let service: Service;
let feed: Awaited<ReturnType<typeof startServer>>;
let openai: FakeOpenAI;
let sharedTriggerId = '';
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

async function api(method: string, url: string, body?: unknown): Promise<{ status: number; json: any }> {
  const headers = body === undefined ? { authorization: auth.authorization } : auth;
  const res = await fetch(`${service.url}${url}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  process.stdout.write(`chaos: seed ${SEED} (replay with CHAOS_SEED=${SEED}), ${ROUNDS} rounds, data dir ${dataDir}\n`);
  feed = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/rss+xml' });
    res.end(rssFeed(FEED_ITEMS));
  });
  openai = await startFakeOpenAI({ script: () => ({ text: 'Triaged: benign.', delayMs: 150 }) });
  service = new Service(dataDir, await freePort(), { RAMPART_BOOTSTRAP_API_KEY: KEY, RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', RAMPART_RATE_LIMIT_PER_MINUTE: '0' });
  await service.start();
});

afterAll(async () => {
  await service?.kill9();
  for (const pid of postgresProcessesFor(dataDir)) process.kill(pid, 'SIGKILL');
  await feed?.close();
  await openai?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('kill -9 at random points', () => {
  it('starts every time, loses no job and repeats no visible effect', async () => {
    const random = seededRandom(SEED);
    const source = await api('POST', '/sources', { kind: 'rss', name: 'Chaos feed', feedUrl: `${feed.url}/feed` });
    expect(source.status, JSON.stringify(source.json)).toBe(200);
    const provider = await api('POST', '/api/model-providers', { name: 'fake', type: 'openai', baseUrl: openai.url, apiKey: 'sk-test' });
    expect(provider.status, JSON.stringify(provider.json)).toBe(200);
    expect((await api('PUT', '/api/model-aliases/default', { providerId: provider.json.id, modelId: 'gpt-4o-mini' })).status).toBe(200);
    const agent = await api('POST', '/api/agents', { name: 'Chaos agent', systemPrompt: 'Triage the event.' });
    expect(agent.status, JSON.stringify(agent.json)).toBe(200);
    const fields = await api('GET', `/api/agents/${agent.json.id}/trigger/webhook/fields`);
    const triggerId = String(fields.json.data.webhookUrl).split('/').pop()!;
    sharedTriggerId = triggerId;
    expect((await api('POST', `/api/agents/${agent.json.id}/trigger/save`, { triggerId, source: 'webhook' })).status).toBe(200);

    let accepted = 0;
    let orphansStopped = 0;
    let asyncRuns = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      // The workload of this round, then a kill at a random point of it.
      const work: Promise<void>[] = [];
      expect((await api('POST', `/sources/${source.json.id}/sync`)).status).toBe(200);
      const run = await api('POST', `/api/agents/${agent.json.id}/run-async`, { input: { round } });
      if (run.status === 200 || run.status === 202) asyncRuns++;
      for (let i = 0; i < 10; i++) {
        work.push(
          fetch(`${service.url}/api/trigger/webhook/${triggerId}`, { method: 'POST', headers: auth, body: JSON.stringify({ round, i }) })
            .then((r) => {
              if (r.status === 200) accepted++;
            })
            .catch(() => {}),
        );
      }
      const killAfter = Math.floor(random() * 1500);
      await sleep(killAfter);
      await service.kill9();
      await Promise.allSettled(work);
      process.stdout.write(`chaos: round ${round}: killed after ${killAfter} ms\n`);
      // The orphaned postgres is still there; the next start must deal with it.
      service.log = '';
      await service.start();
      if (/orphaned embedded PostgreSQL/.test(service.log)) orphansStopped++;
    }

    // Let the last start finish everything: interrupted jobs come back once their worker is
    // presumed dead (60 s without a heartbeat).
    const deadline = Date.now() + 180_000;
    let runs: { status: string; n: number }[] = [];
    while (Date.now() < deadline) {
      runs = await service.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM agent_runs GROUP BY status`);
      const jobs = await service.query<{ n: number }>(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier <> 'platform:pruneJobFailures'`);
      if (jobs[0]!.n === 0 && runs.every((r) => r.status === 'done' || r.status === 'error')) break;
      await sleep(1000);
    }
    const [items] = await service.query<{ n: number; distinct: number }>(`SELECT count(*)::int AS n, count(DISTINCT external_id)::int AS distinct FROM intel_items WHERE source_id = $1`, [source.json.id]);
    expect(items).toEqual({ n: FEED_ITEMS, distinct: FEED_ITEMS });
    const [triggered] = await service.query<{ n: number }>(`SELECT count(*)::int AS n FROM agent_runs WHERE trigger_id = $1`, [triggerId]);
    // Every accepted call has exactly one run (calls cut by the kill may or may not have one).
    expect(triggered!.n).toBeGreaterThanOrEqual(accepted);
    expect(triggered!.n).toBeLessThanOrEqual(ROUNDS * 10);
    const unfinished = runs.filter((r) => r.status !== 'done').reduce((a, r) => a + r.n, 0);
    expect(unfinished, JSON.stringify(runs)).toBe(0);
    expect(asyncRuns).toBe(ROUNDS);
    // SIGKILL leaves the embedded postgres running: every restart found and stopped it.
    expect(orphansStopped).toBe(ROUNDS);

    // A clean stop leaves no PostgreSQL behind.
    expect(await service.stop()).toBe(0);
    expect(postgresProcessesFor(dataDir)).toEqual([]);
    await service.start();
  });
});

describe('the embedded database dies under load', () => {
  it('answers 503 (never 500) while it is restarted, then recovers by itself', async () => {
    const statuses = new Map<number, number>();
    let stop = false;
    const load = (async () => {
      while (!stop) {
        const res = await fetch(`${service.url}/api/agents`, { headers: auth }).catch(() => null);
        if (res) {
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 503) expect(res.headers.get('retry-after')).toBe('5');
          await res.text();
        }
        await sleep(20);
      }
    })();
    await sleep(300);
    // Runs queued just before the database dies must finish once it is back.
    const [before] = await service.query<{ n: number }>(`SELECT count(*)::int AS n FROM agent_runs WHERE status = 'done'`);
    let queued = 0;
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${service.url}/api/trigger/webhook/${sharedTriggerId}`, { method: 'POST', headers: auth, body: JSON.stringify({ beforeDbKill: i }) });
      if (r.status === 200) queued++;
    }
    expect(queued).toBe(5);
    const pid = service.postmasterPid();
    expect(pid).not.toBeNull();
    process.kill(pid!, 'SIGKILL');
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && !/embedded postgres restarted/.test(service.log)) await sleep(200);
    await sleep(1000);
    stop = true;
    await load;
    process.stdout.write(`chaos: statuses during the database kill: ${JSON.stringify(Object.fromEntries(statuses))}\n`);
    expect(service.log).toMatch(/embedded postgres restarted/);
    expect(statuses.has(500)).toBe(false);
    expect([...statuses.keys()].every((s) => s === 200 || s === 503)).toBe(true);
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    // The workers paused while the database was gone and resumed: every queued run finishes.
    const runsDeadline = Date.now() + 60_000;
    let done = 0;
    while (Date.now() < runsDeadline) {
      done = (await service.query<{ n: number }>(`SELECT count(*)::int AS n FROM agent_runs WHERE status = 'done'`))[0]!.n;
      if (done >= before!.n + queued) break;
      await sleep(500);
    }
    // A run mid-flight when the database died could not record its end; graphile-worker then
    // ends its pool. The runner replaces the pool once the database answers and retries the
    // jobs the dead pool held: every run finishes, in this same process.
    if (done !== before!.n + queued) {
      const rows = await service.query(`SELECT r.id, r.status, j.attempts, j.locked_by, j.locked_at FROM agent_runs r LEFT JOIN graphile_worker.jobs j ON j.key = 'agent-run:' || r.id WHERE r.status <> 'done'`);
      process.stdout.write(`chaos: runs not finished after the database restart: ${JSON.stringify(rows)}\n`);
    }
    expect(done).toBe(before!.n + queued);
    process.stdout.write(`chaos: worker pool replaced after the database kill: ${/worker pool restarted/.test(service.log)}\n`);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/rampart_embedded_db_restarts_total\{outcome="ok"\} [1-9]/);
    // Issue 46 item 7: one error line when the database goes away and one when it is back, per
    // outage (counted in /metrics), however many requests were answered 503 meanwhile.
    const outages = Number(/^rampart_db_outages_total (\d+)/m.exec(metrics)?.[1] ?? 'NaN');
    const wentAway = service.log.match(/"msg":"database unavailable: answering 503/g)?.length ?? 0;
    const cameBack = service.log.match(/"msg":"database is back"/g)?.length ?? 0;
    process.stdout.write(`chaos: ${statuses.get(503) ?? 0} answers 503, ${outages} outage(s) logged\n`);
    if (statuses.has(503)) expect(outages).toBeGreaterThanOrEqual(1);
    expect(wentAway).toBe(outages);
    expect(cameBack).toBe(outages);
    expect(await service.stop()).toBe(0);
    expect(postgresProcessesFor(dataDir)).toEqual([]);
  });
});
