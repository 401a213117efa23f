/**
 * `npm run soak`: the production layout of docs/operations.md under a steady load for a long
 * time, to see whether any process's memory grows (issue 46 point 6) and whether anything is
 * lost or delivered twice.
 *
 * Layout: the system's PostgreSQL (Debian's `postgresql` package, as the chaos suite uses it),
 * `rampart migrate`, `rampart admin org create`, two `rampart serve` and one `rampart worker`,
 * each `node bin/rampart.js <role>` on the compiled build (what users run; built first when
 * stale). An OpenAI-compatible model server and a webhook receiver run in this process.
 * Load: signed webhook deliveries to one agent's trigger, open loop at SOAK_RATE per second,
 * alternating between the two APIs; each run answers through the model and its output goes to
 * the receiver (a delivery job on the worker).
 *
 * Every SOAK_SAMPLE_S seconds the resident set size of every process (VmRSS) is sampled, and each
 * process writes its own heap figures (scripts/soak-memory-probe.cjs, preloaded). The
 * report: accepted, delivered once, duplicates (a retried attempt keeps its `webhook-id`, so a
 * receiver can drop it), undelivered when the backlog stopped draining; intake p50/p99; per process the memory at
 * start (load begun), at 5 minutes, at the end and its maximum, and the growth after 5 minutes.
 * The samples go to bench/results/soak-<ISO time>.json.
 *
 * Knobs: SOAK_MINUTES (60), SOAK_RATE (50), SOAK_SAMPLE_S (30), SOAK_MODEL_DELAY_MS (50),
 * SOAK_DRAIN_MINUTES (10: the longest wait for the backlog after the load),
 * SOAK_HEAP_SNAPSHOTS (minutes, e.g. `5,60`: the worker writes a V8 heap snapshot at each, into
 * bench/results/heap-<ISO time>/, for `npm run heap-diff -- A B` to say what the heap gained),
 * RAMPART_CHAOS_PG_BIN (the PostgreSQL bin directory, when not found by itself).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer } from './build-server.js';
import { PostgresServer } from '../test/chaos/postgres.js';
import { freePort, sleep, until } from '../test/chaos/service.js';
import { startFakeOpenAI } from '../test/support/fakes/openai-server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const num = (name: string, dflt: number) => (process.env[name] ? Number(process.env[name]) : dflt);
const MINUTES = num('SOAK_MINUTES', 60);
const RATE = num('SOAK_RATE', 50);
const SAMPLE_MS = num('SOAK_SAMPLE_S', 30) * 1000;
const MODEL_DELAY_MS = num('SOAK_MODEL_DELAY_MS', 50);
const DRAIN_MS = num('SOAK_DRAIN_MINUTES', 10) * 60_000;
const SNAPSHOT_AT_MS = (process.env.SOAK_HEAP_SNAPSHOTS ?? '').split(',').filter(Boolean).map((m) => Number(m) * 60_000);
const RUN_ID = new Date().toISOString().replace(/[:.]/g, '-');
const RESULTS = path.join(ROOT, 'bench', 'results');
const SNAPSHOT_DIR = path.join(RESULTS, `heap-${RUN_ID}`);
const memoryLog = (name: string) => path.join(RESULTS, `soak-${RUN_ID}-${name}.memory.jsonl`);

/** Resident set size in MiB from /proc (Linux), or null once the process is gone. */
function rssMiB(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** `node bin/rampart.js <args>` to completion; throws with its output when it fails. */
function rampart(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/rampart.js', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`rampart ${args.join(' ')} exited ${code}:\n${err}`))));
  });
}

interface Proc {
  name: string;
  child: ChildProcess;
  port: number;
  log: string;
}

async function startRole(name: string, role: 'serve' | 'worker', env: Record<string, string>): Promise<Proc> {
  const port = role === 'serve' ? await freePort() : 0;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `rampart-soak-${name}-`));
  // SIGUSR2 makes the worker write a heap snapshot (Node's own signal handler: nothing of ours runs).
  const snapshots = role === 'worker' && SNAPSHOT_AT_MS.length > 0 ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${SNAPSHOT_DIR}`] : [];
  if (snapshots.length) fs.mkdirSync(SNAPSHOT_DIR, { recursive: true });
  const probe = ['--expose-gc', '--require', path.join(ROOT, 'scripts', 'soak-memory-probe.cjs')];
  const child = spawn(process.execPath, [...snapshots, ...probe, 'bin/rampart.js', role], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), RAMPART_DATA_DIR: dataDir, LOG_LEVEL: 'info', SOAK_MEMORY_LOG: memoryLog(name), SOAK_SAMPLE_S: String(SAMPLE_MS / 1000), SOAK_LIVE_HEAP_AT_MIN: `5,${MINUTES}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc: Proc = { name, child, port, log: '' };
  // Only the tail is kept: a long soak must not measure its own log buffer.
  const keep = (d: Buffer) => (proc.log = (proc.log + d).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  await until(`${name} to be ready`, async () => {
    if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}:\n${proc.log}`);
    if (role === 'worker') return /rampart ready/.test(proc.log) || undefined;
    return (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200).catch(() => false)) || undefined;
  }, 90_000, 200);
  return proc;
}

/** Waits (up to 5 minutes) for every asked heap snapshot to be written out, before the worker is killed. */
async function snapshotsWritten(): Promise<void> {
  if (!SNAPSHOT_AT_MS.length) return;
  const sizes = () => fs.readdirSync(SNAPSHOT_DIR).filter((f) => f.endsWith('.heapsnapshot')).map((f) => fs.statSync(path.join(SNAPSHOT_DIR, f)).size);
  for (let last = '', stable = 0, waited = 0; waited < 300_000; waited += 2_000) {
    const now = sizes();
    stable = now.join() === last ? stable + 1 : 0;
    last = now.join();
    if (now.length >= SNAPSHOT_AT_MS.length && stable >= 3) return;
    await sleep(2_000);
  }
}

async function main(): Promise<void> {
  const pgBin = PostgresServer.find();
  if (!pgBin) throw new Error('no PostgreSQL server installed (apt-get install postgresql, or RAMPART_CHAOS_PG_BIN=<bin dir>)');
  await buildServer({ ifStale: true });
  const pg = await PostgresServer.create(pgBin, await freePort());
  const model = await startFakeOpenAI({ script: () => ({ text: 'Triaged: benign, no action needed.', delayMs: MODEL_DELAY_MS }) });
  const delivered = new Map<string, number>();
  // A bare receiver (the test fakes keep every request: over an hour that is the soak's own memory).
  const receiver = http.createServer((req, res) => {
    const id = req.headers['webhook-id'];
    req.resume();
    req.on('end', () => {
      if (typeof id === 'string') delivered.set(id, (delivered.get(id) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const procs: Proc[] = [];
  // Ctrl-C or a kill of this script must not leave three services and a database behind.
  const abandon = () => {
    for (const p of procs) p.child.kill('SIGKILL');
    pg.destroy();
    process.exit(130);
  };
  process.once('SIGINT', abandon).once('SIGTERM', abandon);
  try {
    const env = {
      DATABASE_URL: pg.url,
      RAMPART_SECRET_KEY: randomBytes(32).toString('base64'),
      RAMPART_BASE_URL: 'http://127.0.0.1:1',
      RAMPART_RATE_LIMIT_PER_MINUTE: '0',
      RAMPART_ALLOW_PRIVATE_NETWORKS: 'true',
    };
    await rampart(['migrate'], env);
    const key = JSON.parse(await rampart(['admin', 'org', 'create', '--name', 'Soak SOC', '--admin-email', 'soak@soc.test'], env)).apiKey.key as string;
    procs.push(await startRole('api-1', 'serve', env), await startRole('api-2', 'serve', env), await startRole('worker', 'worker', env));
    const apis = procs.slice(0, 2).map((p) => `http://127.0.0.1:${p.port}`);
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${apis[0]}${url}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = (await res.json()) as any;
      if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const provider = await call('POST', '/api/model-providers', { name: 'soak', type: 'openai', baseUrl: model.url, apiKey: 'sk-soak' });
    await call('PUT', '/api/model-aliases/default', { providerId: provider.id, modelId: 'gpt-4o-mini' });
    const dest = await call('POST', '/api/output-destinations', { type: 'webhook', name: 'Soak SOAR', config: { url: `${receiverUrl}/hook`, authType: 'bearer' }, token: 'soak-token' });
    const agent = await call('POST', '/api/agents', { name: 'Soak triage', systemPrompt: 'Triage the alert.', outputDestinationIds: [dest.id] });
    const fields = (await call('GET', `/api/agents/${agent.id}/trigger/webhook/fields`)).data as { secret: string; webhookUrl: string };
    const triggerId = fields.webhookUrl.split('/').pop()!;
    await call('POST', `/api/agents/${agent.id}/trigger/save`, { triggerId, source: 'webhook', name: 'soak' });

    const samples: { t: number; rss: Record<string, number | null> }[] = [];
    const sample = (t: number) => samples.push({ t, rss: Object.fromEntries(procs.map((p) => [p.name, rssMiB(p.child.pid!)])) });
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    const durationMs = MINUTES * 60_000;
    const t0 = performance.now();
    sample(0);
    let nextSample = SAMPLE_MS;
    const snapshotsDue = [...SNAPSHOT_AT_MS];
    const worker = procs.find((p) => p.name === 'worker')!;
    let sent = 0;
    const inflight = new Set<Promise<void>>();
    console.log(`soak: ${MINUTES} min at ${RATE}/s across 2 APIs and 1 worker on PostgreSQL ${pgBin}`);
    while (performance.now() - t0 < durationMs) {
      const due = t0 + (sent * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const i = sent++;
      const p = fetch(`${apis[i % 2]}/api/trigger/webhook/${triggerId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fields.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ detail: { id: i, severity: 'high', host: `host-${i % 50}` } }),
      })
        .then(async (res) => {
          await res.arrayBuffer();
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          latencies.push(performance.now() - due);
        })
        .catch((err: Error) => void (statuses[err.message] = (statuses[err.message] ?? 0) + 1))
        .finally(() => inflight.delete(p));
      inflight.add(p);
      const elapsed = performance.now() - t0;
      if (snapshotsDue.length && elapsed >= snapshotsDue[0]! && snapshotsDue.shift() !== undefined) {
        worker.child.kill('SIGUSR2');
        console.log(`soak: ${(elapsed / 60_000).toFixed(1)} min, heap snapshot of the worker into ${path.relative(ROOT, SNAPSHOT_DIR)}`);
      }
      if (elapsed >= nextSample) {
        sample(elapsed);
        nextSample += SAMPLE_MS;
        const last = samples.at(-1)!.rss;
        console.log(`soak: ${(elapsed / 60_000).toFixed(1)} min, sent ${sent}, delivered ${delivered.size}, rss ${Object.entries(last).map(([k, v]) => `${k} ${v?.toFixed(0)} MiB`).join(', ')}`);
      }
    }
    await Promise.all(inflight);
    sample(performance.now() - t0);
    // A snapshot due at the very end (SOAK_HEAP_SNAPSHOTS=…,60 with SOAK_MINUTES=60) is taken now.
    if (snapshotsDue.length) worker.child.kill('SIGUSR2');
    const accepted = statuses['200'] ?? 0;
    // The backlog drains after the load: wait while deliveries keep arriving (a worker behind on a
    // loaded machine is slow, not losing), and stop after 2 minutes without progress or at
    // SOAK_DRAIN_MINUTES.
    const drainUntil = performance.now() + DRAIN_MS;
    for (let seen = -1, still = 0; delivered.size < accepted && still < 120 && performance.now() < drainUntil; ) {
      await sleep(5_000);
      still = delivered.size === seen ? still + 5 : 0;
      seen = delivered.size;
    }
    const drainedAt = performance.now() - t0;

    const sorted = latencies.sort((a, b) => a - b);
    const pct = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
    const at = (ms: number) => samples.find((s) => s.t >= ms) ?? samples.at(-1)!;
    const memory = procs.map((p) => {
      const series = samples.map((s) => s.rss[p.name]).filter((v): v is number => v !== null);
      const start = samples[0]!.rss[p.name]!;
      const five = at(5 * 60_000).rss[p.name]!;
      const end = series.at(-1)!;
      // The probe's own clock starts at the process's start, a little before the load's.
      const probe = fs.readFileSync(memoryLog(p.name), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as NodeJS.MemoryUsage & { t: number });
      const heapAt = (ms: number) => (probe.find((x) => x.t >= ms) ?? probe.at(-1)!).heapUsed / 2 ** 20;
      const heap = { startMiB: probe[0]!.heapUsed / 2 ** 20, fiveMinMiB: heapAt(5 * 60_000), endMiB: probe.at(-1)!.heapUsed / 2 ** 20, maxMiB: Math.max(...probe.map((x) => x.heapUsed)) / 2 ** 20 };
      // After a full collection at 5 minutes and at the end of the load: what the heap holds.
      const live = probe.filter((x) => (x as { live?: boolean }).live).map((x) => x.heapUsed / 2 ** 20);
      return { process: p.name, startMiB: start, fiveMinMiB: five, endMiB: end, maxMiB: Math.max(...series), growthAfter5MinPct: ((end - five) / five) * 100, heapUsed: heap, liveHeapMiB: live };
    });
    const duplicates = [...delivered.values()].filter((n) => n > 1).length;
    const report = {
      date: new Date().toISOString(),
      minutes: MINUTES,
      rate: RATE,
      sent,
      statuses,
      accepted,
      deliveredOnce: [...delivered.values()].filter((n) => n === 1).length,
      duplicates,
      undelivered: Math.max(0, accepted - delivered.size),
      drainedAfterMin: drainedAt / 60_000,
      intakeP50Ms: pct(0.5),
      intakeP99Ms: pct(0.99),
      memory,
      load: os.loadavg(),
      samples,
    };
    const out = path.join(RESULTS, `soak-${RUN_ID}.json`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(report, null, 2));
    console.log(`\nsoak ${report.date}: sent ${sent}, accepted ${accepted}, delivered once ${report.deliveredOnce}, duplicates ${duplicates}, undelivered ${report.undelivered} (backlog drained ${(report.drainedAfterMin - MINUTES).toFixed(1)} min after the load); intake p50 ${report.intakeP50Ms.toFixed(1)} ms, p99 ${report.intakeP99Ms.toFixed(1)} ms; load ${report.load.map((l) => l.toFixed(1)).join(' ')}`);
    console.log('| process | RSS start | 5 min | end | max | growth after 5 min | JS heap used start | 5 min | end | max | live heap (after a full GC) at 5 min, end |\n|---|---|---|---|---|---|---|---|---|---|---|');
    const f = (n: number) => `${n.toFixed(0)} MiB`;
    for (const m of memory) console.log(`| ${m.process} | ${f(m.startMiB)} | ${f(m.fiveMinMiB)} | ${f(m.endMiB)} | ${f(m.maxMiB)} | ${m.growthAfter5MinPct.toFixed(1)}% | ${f(m.heapUsed.startMiB)} | ${f(m.heapUsed.fiveMinMiB)} | ${f(m.heapUsed.endMiB)} | ${f(m.heapUsed.maxMiB)} | ${m.liveHeapMiB.map(f).join(', ')} |`);
    console.log(`samples: ${path.relative(ROOT, out)}`);
  } finally {
    await snapshotsWritten();
    for (const p of procs) p.child.kill('SIGKILL');
    receiver.closeAllConnections();
    receiver.close();
    await model.close();
    pg.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
