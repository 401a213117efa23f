/**
 * Detect (issue 44): Sigma detections run on events.
 *
 * 1. Matching throughput on one core: 1,000 SigmaHQ rules of the fixture (../shared/fixtures/sigma,
 *    the first that compile, in path order, each its own detection) compiled once, then a stream
 *    of 100,000 events matched in batches of 1,000 in this process (one thread): events/s and CPU
 *    microseconds per event (process.cpuUsage; events/s is per CPU-second of the matching thread,
 *    so a loaded machine does not lower it, and per wall-clock second beside it). The stream is built from SigmaHQ's regression
 *    events (real EVTX records as JSON, each with the logsource of its rule): one event in ten is
 *    such a record as is (most match their rule), the other nine are copies with every string
 *    value replaced by benign process-creation text (they reach the same rules and match none),
 *    the usual proportion for a SIEM's stream.
 * 2. Event-in → alert latency: the same 1,000 detections stored in an organization, the API as
 *    `rampart serve` in a child process and one worker (the service's job catalog, concurrency
 *    2) in this process; events posted to `POST /api/events` at 2,000 events/s (batches of 200
 *    every 100 ms), one regression event per batch tagged with the batch's number. Latency: from
 *    the request's start to the commit of the alert (or the duplicate counted on it) that carries
 *    the tagged event (alert and timeline timestamps, same host clock).
 *
 * Knobs: BENCH_DETECT_RULES (1000), BENCH_DETECT_EVENTS (100000; quick 20000),
 * BENCH_DETECT_SECONDS (20; quick 5).
 *
 * `loadCorpus`, `stream` and `throughput` are exported to profile the matching pass alone
 * (`node --import tsx --cpu-prof` on a script calling them; docs/performance-history.md).
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { sql } from 'kysely';
import { request } from 'undici';
import { parse } from 'yaml';
import { compileSigma } from '../src/modules/alerts/index.js';
import { createCompiledDetections, DetectionSet, drainEventsJob, drainOrganization, loadDetection, type DeclaredEvent } from '../src/modules/detect/index.js';
import { createOrganization } from '../src/modules/organizations/index.js';
import { buildJobCatalog } from '../src/jobs.js';
import { serviceEvents } from '../src/composition.js';
import type { Database } from '../src/platform/db/database.js';
import { JobCatalog, type JobDefinition } from '../src/platform/jobs/catalog.js';
import { startWorkers } from '../src/platform/jobs/runner.js';
import { createGuardedClient } from '../src/platform/outbound/index.js';
import { createSecretBox } from '../src/platform/secrets.js';
import { cpuSeconds } from './support/cpu.js';
import { startBenchDatabase } from './support/db.js';
import { envNumber, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { startRampartServer, waitReady } from './support/http-children.js';
import { percentile, prng } from './support/stats.js';
import { sharedPath } from '../test/support/shared-dir.js';

export const TARGETS = { eventsPerSecond: 20_000, p99LatencyMs: 1000 } as const;
// Found as tests find it (RAMPART_SHARED_DIR, which --compare passes to an exported ref, or the nearest shared/).
const FIXTURE = sharedPath('fixtures/sigma');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => (e.isDirectory() ? yamlFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : []));
}

/** Objects written one after another (pretty-printed), as the regression files hold them. */
function concatenatedJson(text: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') {
      if (depth++ === 0) start = i;
    } else if (c === '}' && --depth === 0) out.push(JSON.parse(text.slice(start, i + 1)));
  }
  return out;
}

function flattenEvtx(record: Record<string, unknown>): Record<string, unknown> {
  const ev = record.Event as { System: Record<string, unknown>; EventData?: Record<string, unknown> | null };
  const sys = ev.System;
  const provider = (sys.Provider as { '#attributes'?: { Name?: string } } | undefined)?.['#attributes']?.Name;
  return { ...(ev.EventData ?? {}), EventID: sys.EventID, Channel: sys.Channel, Computer: sys.Computer, Provider_Name: provider };
}

interface Corpus {
  rules: Array<{ file: string; text: string; title: string }>;
  regression: DeclaredEvent[];
}

export function loadCorpus(ruleCount: number): Corpus {
  const rules: Corpus['rules'] = [];
  const byId = new Map<string, { product?: string; category?: string; service?: string }>();
  for (const file of yamlFiles(join(FIXTURE, 'rules'))) {
    const text = readFileSync(file, 'utf8');
    const unit = compileSigma(text);
    for (const r of unit.rules) if (r.id) byId.set(r.id, r.logsource);
    if (rules.length < ruleCount && unit.rules.length === 1 && unit.refusals.length === 0 && unit.correlations.length === 0) rules.push({ file, text, title: unit.rules[0]!.title });
  }
  const regression: DeclaredEvent[] = [];
  for (const info of yamlFiles(join(FIXTURE, 'regression')).filter((f) => f.endsWith('info.yml'))) {
    const id = (parse(readFileSync(info, 'utf8')) as { rule_metadata: Array<{ id: string }> }).rule_metadata[0]!.id;
    const json = join(dirname(info), `${id}.json`);
    const logsource = byId.get(id);
    if (!logsource || !existsSync(json)) continue;
    const ls = Object.fromEntries(Object.entries(logsource).map(([k, v]) => [k, String(v).toLowerCase()]));
    for (const e of concatenatedJson(readFileSync(json, 'utf8'))) regression.push({ logsource: ls, event: flattenEvtx(e) });
  }
  return { rules, regression };
}

const BENIGN = [
  'C:\\Windows\\System32\\svchost.exe -k netsvcs -p -s Schedule',
  'C:\\Program Files\\Microsoft Office\\root\\Office16\\OUTLOOK.EXE',
  '"C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe" --type=renderer --lang=en-US',
  'C:\\Windows\\system32\\conhost.exe 0xffffffff -ForceV1',
  'C:\\Windows\\System32\\RuntimeBroker.exe -Embedding',
  'C:\\Users\\jdoe\\AppData\\Local\\Microsoft\\Teams\\current\\Teams.exe',
  'C:\\Windows\\System32\\SearchProtocolHost.exe Global\\UsGthrFltPipeMssGthrPipe5',
];

/** One in ten events a regression record as is; the others the same records with benign values. */
export function stream(regression: DeclaredEvent[], count: number): DeclaredEvent[] {
  const rnd = prng(44);
  const out: DeclaredEvent[] = [];
  for (let i = 0; i < count; i++) {
    const base = regression[Math.floor(rnd() * regression.length)]!;
    if (i % 10 === 0) {
      out.push({ logsource: base.logsource, event: { ...base.event } });
      continue;
    }
    const event: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(base.event)) event[k] = typeof v === 'string' && k !== 'Channel' && k !== 'Provider_Name' ? BENIGN[Math.floor(rnd() * BENIGN.length)] : v;
    out.push({ logsource: base.logsource, event });
  }
  return out;
}

export async function throughput(corpus: Corpus, events: DeclaredEvent[]) {
  const t0 = performance.now();
  const set = new DetectionSet(
    corpus.rules.map((r, i) =>
      loadDetection({ id: String(i), name: r.title, description: '', severity: 'medium', logTable: null, query: r.text, attackTechniques: [], attackTactics: [] }),
    ),
  );
  const compileMs = performance.now() - t0;
  // Warm-up (JIT, the per-logsource candidate lists), then the measured pass.
  set.match(events.slice(0, 5000));
  const cpu0 = process.cpuUsage();
  const w0 = performance.now();
  let matched = 0;
  for (let i = 0; i < events.length; i += 1000) {
    const m = set.match(events.slice(i, i + 1000));
    for (const d of m.perDetection.values()) matched += d.events.length;
  }
  const wallMs = performance.now() - w0;
  const cpu = process.cpuUsage(cpu0);
  const cpuUs = cpu.user + cpu.system;
  // Per CPU-second of this thread: what one core does, whatever else the machine runs meanwhile.
  return { set, compileMs, wallMs, eventsPerSecond: events.length / (wallMs / 1000), eventsPerCpuSecond: events.length / (cpuUs / 1e6), cpuUsPerEvent: cpuUs / events.length, matched, rules: set.ruleCount };
}

/** When a tagged batch's matching job started and ended (its transaction committed), and when the API stored it. */
interface JobMark {
  receivedAt: number;
  startedAt: number;
  endedAt: number;
}

/**
 * The service's job catalog with the drain job timed: the same drain (drainOrganization, with the
 * service's event bus) with an observer that records, for each claim, when it started and when its
 * transaction committed, and for each tagged batch in it (`BenchBatch`, the batch's first line)
 * when the API stored it. A claim's start is when the drain began that claim (after any wait for a
 * worker slot or a previous claim): queue = stored → claim start.
 */
function timedCatalog(catalog: JobCatalog, db: Database, marks: Map<number, JobMark>): JobCatalog {
  const out = new JobCatalog();
  const compiled = createCompiledDetections();
  const events = serviceEvents();
  for (const def of catalog.all()) {
    if (def.name !== drainEventsJob.name) {
      out.register(def);
      continue;
    }
    const timed: JobDefinition<unknown> = {
      ...def,
      async run(payload, ctx) {
        const { organizationId } = payload as { organizationId: string };
        await drainOrganization(db, compiled, { events }, organizationId, {
          signal: ctx.signal,
          onClaim: (claimed, times) => {
            for (const c of claimed) {
              const b = c.firstEvent?.BenchBatch;
              if (typeof b === 'number') marks.set(b, { receivedAt: c.receivedAt.getTime(), startedAt: times.startedAt, endedAt: times.committedAt });
            }
          },
        });
      },
    };
    out.register(timed);
  }
  return out;
}

function postmasterPid(dataDir: string): number | null {
  try {
    return Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]) || null;
  } catch {
    return null;
  }
}

const pct = (values: number[], p: number) => percentile(Float64Array.from(values).sort(), p);

async function latency(ctx: BenchContext, corpus: Corpus, set: DetectionSet, seconds: number) {
  const database = await startBenchDatabase('detect');
  try {
    const org = await createOrganization(database.db, { name: 'Bench Org', adminEmail: 'bench@detect.test' });
    const orgId = org.organization.id;
    await sql`
      INSERT INTO code_detections (id, organization_id, name, severity, status, query, created_at, updated_at)
      SELECT gen_random_uuid(), ${orgId}, r.name, 'medium', 'test', r.query, now(), now()
      FROM jsonb_to_recordset(${JSON.stringify(corpus.rules.map((r) => ({ name: r.title.slice(0, 255), query: r.text })))}::jsonb) AS r(name text, query text)`.execute(database.db);
    const server = await startRampartServer(database);
    const logger = pino({ level: 'warn' });
    const marks = new Map<number, JobMark>();
    const catalog = timedCatalog(
      buildJobCatalog({ db: database.db, secrets: createSecretBox(Buffer.alloc(32, 7)), http: createGuardedClient({ allowPrivateNetworks: false, retries: 0 }), logger }),
      database.db,
      marks,
    );
    const worker = await startWorkers({ db: database.db, pool: database.pool, catalog, logger, concurrency: 2, pollIntervalMs: 50, heartbeatMs: 1000, deadWorkerAfterMs: 30_000 });
    try {
      await waitReady(server);
      const auth = { authorization: `Bearer ${org.apiKey.key}`, 'content-type': 'application/x-ndjson' };
      // Tagged events: process-creation regression records that one of the loaded rules matches.
      // (Until 2026-11-29 any process-creation record was tagged, and 75 of each 200 belonged to rules
      // outside the first 1,000 loaded: they could never alert. docs/performance-history.md.)
      const processCreation = corpus.regression.filter((r) => r.logsource.category === 'process_creation' && r.logsource.product === 'windows');
      const matching = processCreation.filter((r) => set.match([r]).rules.length > 0);
      ctx.log(`${matching.length} of ${processCreation.length} process-creation regression events match a loaded rule: the tagged events`);
      const background = stream(corpus.regression, 199 * 50).filter((_, i) => i % 10 !== 0);
      const batchBody = (b: number) => {
        const tagged = matching[((b % matching.length) + matching.length) % matching.length]!;
        const lines = [JSON.stringify({ ...tagged.event, logsource: tagged.logsource, BenchBatch: b })];
        for (let i = 0; i < 199; i++) {
          const e = background[(Math.abs(b) * 199 + i) % background.length]!;
          lines.push(JSON.stringify({ ...e.event, logsource: e.logsource }));
        }
        return lines.join('\n');
      };
      const drained = async (limitMs: number) => {
        const until = performance.now() + limitMs;
        while (performance.now() < until) {
          const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM detect_event_batches`.execute(database.db);
          if (left.rows[0]!.n === 0) return true;
          await new Promise((r) => setTimeout(r, 100));
        }
        return false;
      };
      // Warm-up: the worker compiles the organization's 1,000 rules on its first batch (and again
      // after any change to them); that cold start is measured here, apart from the steady state.
      const cold0 = Date.now();
      const warm = await request(`${server.origin}/api/events`, { method: 'POST', headers: auth, body: batchBody(-1) });
      await warm.body.dump();
      await drained(120_000);
      const coldStartMs = (marks.get(-1)?.endedAt ?? NaN) - cold0;
      ctx.log(`cold start (first batch: the worker compiles the rules): ${coldStartMs.toFixed(0)} ms`);

      const sentAt = new Map<number, number>();
      const refused = new Map<number, number>();
      const refusedBatches = new Set<number>();
      const batches = Math.round(seconds * 10);
      ctx.log(`posting ${batches} batches of 200 events (2,000 events/s)`);
      const pids = { api: server.child.pid ?? null, postgres: postmasterPid(database.clusterDir) };
      const cpu0 = { bench: process.cpuUsage(), api: cpuSeconds(pids.api), postgres: cpuSeconds(pids.postgres, true) };
      const pending: Array<Promise<void>> = [];
      const start = performance.now();
      for (let b = 0; b < batches; b++) {
        const due = start + b * 100;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const body = batchBody(b);
        sentAt.set(b, Date.now());
        pending.push(
          request(`${server.origin}/api/events`, { method: 'POST', headers: auth, body }).then(async (res) => {
            await res.body.dump();
            // A refusal (503: the database did not answer in time) is counted, not fatal: it is a result.
            if (res.statusCode !== 202) {
              refused.set(res.statusCode, (refused.get(res.statusCode) ?? 0) + 1);
              refusedBatches.add(b);
            }
          }),
        );
      }
      await Promise.all(pending);
      const complete = await drained(60_000);
      const benchCpu = process.cpuUsage(cpu0.bench);
      const cpu = {
        benchProcess: (benchCpu.user + benchCpu.system) / 1e6,
        api: (cpuSeconds(pids.api) ?? NaN) - (cpu0.api ?? NaN),
        postgres: (cpuSeconds(pids.postgres, true) ?? NaN) - (cpu0.postgres ?? NaN),
      };
      // When each tagged event's alert (created or counted as a duplicate) was committed.
      const { rows } = await sql<{ b: number; at: Date; how: 'created' | 'duplicate' }>`
        SELECT DISTINCT ON (b) b, at, how FROM (
          SELECT (e->>'BenchBatch')::int AS b, x.at, x.how FROM (
            SELECT created_at AS at, payload->'events' AS evs, 'created' AS how FROM alerts WHERE organization_id = ${orgId}
            UNION ALL
            SELECT t.created_at, t.data->'payload'->'events', 'duplicate' FROM alert_timeline t WHERE t.organization_id = ${orgId} AND t.kind = 'duplicate'
          ) x, jsonb_array_elements(x.evs) e WHERE e ? 'BenchBatch'
        ) y ORDER BY b, at`.execute(database.db);
      const found = new Map(rows.map((r) => [r.b, r]));
      const left = await sql<{ b: number }>`SELECT (coalesce(events->'events'->0, events->0->'event')->>'BenchBatch')::int AS b FROM detect_event_batches`.execute(database.db);
      const queued = new Set(left.rows.map((r) => r.b));
      // Every tagged batch accounted for: an alert, a duplicate counted on one, refused, or still queued.
      const accounting = { created: 0, duplicate: 0, refused: 0, stillQueued: 0, unaccounted: [] as number[] };
      const lat: number[] = [];
      const parts = { request: [] as number[], queue: [] as number[], job: [] as number[] };
      const worst: Array<{ b: number; total: number; request: number; queue: number; job: number }> = [];
      for (let b = 0; b < batches; b++) {
        const hit = found.get(b);
        if (hit) {
          accounting[hit.how]++;
          lat.push(hit.at.getTime() - sentAt.get(b)!);
          const m = marks.get(b);
          if (m) {
            const row = { b, total: m.endedAt - sentAt.get(b)!, request: m.receivedAt - sentAt.get(b)!, queue: m.startedAt - m.receivedAt, job: m.endedAt - m.startedAt };
            parts.request.push(row.request);
            parts.queue.push(row.queue);
            parts.job.push(row.job);
            worst.push(row);
          }
        } else if (queued.has(b)) accounting.stillQueued++;
        else if (refusedBatches.has(b)) accounting.refused++;
        else accounting.unaccounted.push(b);
      }
      worst.sort((a, z) => z.total - a.total);
      const events = batches * 200;
      return {
        batches,
        taggedPool: { matching: matching.length, processCreation: processCreation.length },
        coldStartMs,
        complete,
        accounting,
        alerted: lat.length,
        refused: Object.fromEntries(refused),
        p50: pct(lat, 50),
        p99: pct(lat, 99),
        max: Math.max(...lat),
        commitP99: pct(worst.map((w) => w.total), 99),
        breakdown: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, { p50: pct(v, 50), p99: pct(v, 99), max: Math.max(...v) }])),
        worst: worst.slice(0, 5),
        cpu,
        cpuUsPerEvent: { benchProcess: (cpu.benchProcess / events) * 1e6, api: (cpu.api / events) * 1e6, postgres: (cpu.postgres / events) * 1e6 },
        load: os.loadavg(),
      };
    } finally {
      await worker.stop();
      await server.stop();
    }
  } finally {
    await database.close();
  }
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const ruleCount = envNumber('BENCH_DETECT_RULES', 1000);
  const eventCount = envNumber('BENCH_DETECT_EVENTS', ctx.quick ? 20_000 : 100_000);
  const seconds = envNumber('BENCH_DETECT_SECONDS', ctx.quick ? 5 : 20);
  ctx.log('compiling the SigmaHQ fixture');
  const corpus = loadCorpus(ruleCount);
  const events = stream(corpus.regression, eventCount);
  const tp = await throughput(corpus, events);
  console.log(`\n${tp.rules} rules compiled in ${tp.compileMs.toFixed(0)} ms; ${events.length} events in ${tp.wallMs.toFixed(0)} ms (${tp.eventsPerSecond.toFixed(0)} events/s wall): ${tp.eventsPerCpuSecond.toFixed(0)} events per CPU-second, ${tp.cpuUsPerEvent.toFixed(1)} µs CPU per event, ${tp.matched} matches`);
  const lat = await latency(ctx, corpus, tp.set, seconds);
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  console.log(`event-in → alert over ${lat.alerted}/${lat.batches} tagged batches: p50 ${ms(lat.p50)}, p99 ${ms(lat.p99)}, max ${ms(lat.max)} (load ${lat.load.map((l) => l.toFixed(1)).join(' ')})`);
  console.log(`  accounted: ${JSON.stringify(lat.accounting)}; refused by status: ${JSON.stringify(lat.refused)}; queue drained: ${lat.complete}`);
  console.log(`  cold start (the worker compiles the rules on the first batch): ${ms(lat.coldStartMs)}`);
  console.log(`  to the job's commit, p99 ${ms(lat.commitP99)}; by part (p50 / p99 / max): ${Object.entries(lat.breakdown).map(([k, v]) => `${k} ${ms(v.p50)} / ${ms(v.p99)} / ${ms(v.max)}`).join('; ')}`);
  console.log(`  slowest: ${lat.worst.map((w) => `#${w.b} ${ms(w.total)} (request ${w.request}, queue ${w.queue}, job ${w.job})`).join('; ')}`);
  console.log(`  CPU per event: bench process (worker + client) ${lat.cpuUsPerEvent.benchProcess.toFixed(1)} µs, API ${lat.cpuUsPerEvent.api.toFixed(1)} µs, PostgreSQL ${lat.cpuUsPerEvent.postgres.toFixed(1)} µs`);
  return {
    figures: [
      { name: `matching: ${tp.rules} rules, ${events.length} events, events per CPU-second (one core)`, value: tp.eventsPerCpuSecond, unit: 'events/s', digits: 0, target: { value: TARGETS.eventsPerSecond, kind: 'min' } },
      { name: 'matching: events/s wall clock', value: tp.eventsPerSecond, unit: 'events/s', digits: 0 },
      { name: 'matching: CPU per event', value: tp.cpuUsPerEvent, unit: 'µs', digits: 1 },
      { name: 'event-in → alert p99 at 2,000 events/s', value: lat.p99, unit: 'ms', digits: 0, target: { value: TARGETS.p99LatencyMs, kind: 'max' } },
      { name: 'event-in → alert p50 at 2,000 events/s', value: lat.p50, unit: 'ms', digits: 0 },
      { name: 'event-in → alert: tagged batches alerted or counted (of all posted)', value: lat.alerted / lat.batches, unit: '', digits: 3, target: { value: 1, kind: 'min' } },
      { name: 'event-in → alert: cold start (first batch compiles the rules)', value: lat.coldStartMs, unit: 'ms', digits: 0 },
      { name: 'event-in → alert: CPU per event, API', value: lat.cpuUsPerEvent.api, unit: 'µs', digits: 1 },
      { name: 'event-in → alert: CPU per event, PostgreSQL', value: lat.cpuUsPerEvent.postgres, unit: 'µs', digits: 1 },
      { name: 'event-in → alert: CPU per event, worker + client (bench process)', value: lat.cpuUsPerEvent.benchProcess, unit: 'µs', digits: 1 },
      { name: 'event-in → alert: p99 of the queue wait (stored → job start)', value: lat.breakdown.queue!.p99, unit: 'ms', digits: 0 },
      { name: 'event-in → alert: p99 of the job (start → commit)', value: lat.breakdown.job!.p99, unit: 'ms', digits: 0 },
      { name: 'event-in → alert: p99 of the request (sent → stored)', value: lat.breakdown.request!.p99, unit: 'ms', digits: 0 },
    ],
    notes: [
      `${corpus.regression.length} SigmaHQ regression events as the stream's source; 1 in 10 as is, 9 in 10 with benign values`,
      `latency over ${lat.alerted} of ${lat.batches} batches (one tagged event each, a record a loaded rule matches), after a warm-up batch (cold start ${lat.coldStartMs.toFixed(0)} ms); API child process, worker in the bench process (concurrency 2)`,
      `tagged batches: ${lat.accounting.created} alerted, ${lat.accounting.duplicate} counted as duplicates, ${lat.accounting.refused} refused, ${lat.accounting.stillQueued} still queued, ${lat.accounting.unaccounted.length} unaccounted`,
    ],
    details: { throughput: { ...tp, set: undefined }, latency: lat },
  };
}

export const detectBench: BenchDefinition = { name: 'detect', title: 'Sigma detections on events: matching throughput, event-in → alert latency', run };
