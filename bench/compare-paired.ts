/**
 * `npm run bench:paired -- <git-ref> [alerts|triggers]`: webhook intake's CPU per request on two
 * builds driven AT THE SAME MOMENTS, a sharper instrument than `--compare` for a few-percent
 * question. `--compare` runs the builds in turn; on this shared 2-core VM a round's CPU per request
 * swings ±20% with the machine (8 alternated rounds of `alerts` left the ratio's median ±6%
 * uncertain). Here the ref's server and this checkout's run side by side, each with its own
 * embedded PostgreSQL, and every tick of the open loop sends one request to each (alternating
 * which goes first), so a swing of the machine lands on both alike; the ratio is taken per round,
 * then its median. Latency is not a figure here (each build's requests queue behind the other's);
 * run the bench itself for that.
 *
 * - `alerts` (default): the alerts bench's intake, a trigger mapping deliveries to alerts
 *   deduplicated over 50 hosts (almost every delivery a duplicate).
 * - `triggers`: the triggers bench's intake, each delivery starting a run.
 *
 * The ref is exported as `--compare` does (bench/support/compare.ts) and started by its own bench
 * support code. Knobs: PAIRED_RPS (150 per build), PAIRED_WARMUP_S (30: a fresh server's JIT
 * settles over its first ~20 s at this rate), PAIRED_ROUNDS (16), PAIRED_ROUND_S (10),
 * PAIRED_CPU_PROF=1 (a V8 profile of both servers over the rounds, bench/results/profiles/
 * paired-{a,b}.cpuprofile: where B's CPU goes that A's does not, with bench/profile-summary.ts).
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { exportRef } from './support/compare.js';
import { cpuSeconds } from './support/cpu.js';
import { envNumber } from './support/harness.js';
import { table } from './support/report.js';

type Mode = 'alerts' | 'triggers';
interface Side {
  profile(file: string | null): Promise<void>;
  send(i: number): Promise<number>;
  cpu(): { server: number; pg: number };
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** One build's server and PostgreSQL, set up by that build's own bench support code. */
async function startSide(dir: string, label: string, mode: Mode): Promise<Side> {
  const load = (file: string) => import(path.join(dir, file));
  const { startBenchDatabase } = await load('bench/support/db.ts');
  const { startRampartServer, waitReady, profileStart, profileStop } = await load('bench/support/http-children.ts');
  const { postmasterPid } = await load('bench/support/http-measure.ts');
  const { json } = await load('bench/triggers.bench.ts');
  const { createOrganization } = await load('src/modules/organizations/index.ts');
  const database = await startBenchDatabase(`paired-${label}`);
  const org = await createOrganization(database.db, { name: 'Paired', adminEmail: `${label}@paired.test` });
  const server = await startRampartServer(database);
  await waitReady(server);
  const auth = { authorization: `Bearer ${org.apiKey.key}` };
  const agent = await json(`${server.origin}/api/agents`, { method: 'POST', headers: auth, body: { name: 'Bench triage', systemPrompt: 'Triage the alert.' } });
  const fields = (await json(`${server.origin}/api/agents/${agent.id}/trigger/webhook/fields`, { headers: auth })).data as { secret: string; webhookUrl: string };
  const triggerId = fields.webhookUrl.split('/').pop()!;
  const alertMapping = mode === 'alerts' ? { alertMapping: { title: '/alert/rule', dedupeKey: '/alert/host' } } : {};
  await json(`${server.origin}/api/agents/${agent.id}/trigger/save`, { method: 'POST', headers: auth, body: { triggerId, source: 'webhook', name: 'bench', ...alertMapping } });
  const pool = new Pool(server.origin, { connections: 32 });
  const pgPid = postmasterPid(database.clusterDir);
  const headers = { authorization: `Bearer ${fields.secret}`, 'content-type': 'application/json' };
  return {
    profile: (file) => (file ? profileStop(server, file) : profileStart(server)),
    send: async (i) => {
      const body = JSON.stringify({ alert: { id: i, rule: 'Brute force', severity: 'high', host: `host-${i % 50}` } });
      const res = await pool.request({ method: 'POST', path: `/api/trigger/webhook/${triggerId}`, headers, body });
      await res.body.text();
      return res.statusCode;
    },
    cpu: () => ({ server: cpuSeconds(server.child.pid) ?? NaN, pg: cpuSeconds(pgPid, true) ?? NaN }),
    stop: async () => {
      await pool.close();
      server.child.kill();
      await database.close();
    },
  };
}

/** `rate` ticks per second for `ms`, each sending one request to both builds; the tick count. */
async function drive(a: Side, b: Side, rate: number, ms: number, from: number): Promise<number> {
  const ticks = Math.round((ms / 1000) * rate);
  const start = performance.now();
  const inflight: Promise<number>[] = [];
  for (let k = 0; k < ticks; k++) {
    const wait = start + (k * 1000) / rate - performance.now();
    if (wait > 1) await sleep(wait);
    const [first, second] = k % 2 ? [a, b] : [b, a];
    inflight.push(first.send(from + k), second.send(from + k));
  }
  const codes = await Promise.all(inflight);
  const failed = codes.filter((c) => c !== 200).length;
  if (failed) throw new Error(`${failed} of ${codes.length} deliveries not answered 200`);
  return ticks;
}

async function main(): Promise<number> {
  const [ref, modeArg = 'alerts'] = process.argv.slice(2);
  if (!ref || !['alerts', 'triggers'].includes(modeArg)) {
    console.error('usage: npm run bench:paired -- <git-ref> [alerts|triggers]');
    return 2;
  }
  const mode = modeArg as Mode;
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const exported = exportRef(repo, ref);
  const rate = envNumber('PAIRED_RPS', 150);
  const rounds = envNumber('PAIRED_ROUNDS', 16);
  const roundMs = envNumber('PAIRED_ROUND_S', 10) * 1000;
  console.log(`paired ${mode} intake: A = ${ref} (${exported.sha.slice(0, 12)}), B = this checkout; ${rate} req/s to each, ${rounds} rounds of ${roundMs / 1000} s; load ${os.loadavg().map((x) => x.toFixed(2)).join(' / ')}`);
  const a = await startSide(exported.dir, 'a', mode);
  const b = await startSide(repo, 'b', mode);
  try {
    const warmup = await drive(a, b, rate, envNumber('PAIRED_WARMUP_S', 30) * 1000, 0);
    let sent = warmup;
    const rows: string[][] = [];
    const ratio = { server: [] as number[], pg: [] as number[] };
    const profiles = process.env.PAIRED_CPU_PROF ? path.join(repo, 'bench', 'results', 'profiles') : null;
    if (profiles) await Promise.all([a.profile(null), b.profile(null)]);
    for (let r = 1; r <= rounds; r++) {
      const a0 = a.cpu();
      const b0 = b.cpu();
      const ticks = await drive(a, b, rate, roundMs, sent);
      sent += ticks;
      const a1 = a.cpu();
      const b1 = b.cpu();
      const us = (x0: number, x1: number) => ((x1 - x0) * 1e6) / ticks;
      const v = { as: us(a0.server, a1.server), bs: us(b0.server, b1.server), ap: us(a0.pg, a1.pg), bp: us(b0.pg, b1.pg) };
      ratio.server.push(v.bs / v.as);
      ratio.pg.push(v.bp / v.ap);
      rows.push([String(r), v.as.toFixed(0), v.bs.toFixed(0), `${(v.bs / v.as).toFixed(3)}×`, v.ap.toFixed(0), v.bp.toFixed(0), `${(v.bp / v.ap).toFixed(3)}×`, os.loadavg()[0]!.toFixed(1)]);
    }
    if (profiles) {
      await Promise.all([a.profile(path.join(profiles, 'paired-a.cpuprofile')), b.profile(path.join(profiles, 'paired-b.cpuprofile'))]);
      console.log(`profiles: npx tsx bench/profile-summary.ts ${path.relative(process.cwd(), profiles)}/paired-{a,b}.cpuprofile 40 ${sent - warmup}`);
    }
    console.log(table(['round', 'server A µs', 'server B µs', 'B/A', 'PG A µs', 'PG B µs', 'B/A', 'load'], rows, [0, 1, 2, 3, 4, 5, 6, 7]));
    console.log(`median of the rounds' ratios B/A (CPU per request): server ${median(ratio.server).toFixed(3)}×, PostgreSQL ${median(ratio.pg).toFixed(3)}×`);
    return 0;
  } finally {
    await b.stop();
    await a.stop();
  }
}

process.exitCode = await main();
process.exit();
