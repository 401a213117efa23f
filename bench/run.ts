/**
 * `npm run bench`: every benchmark in BENCHES, one after another, each on its own embedded
 * PostgreSQL; then one summary table (figure, target, ratio, pass/fail) with the machine it ran
 * on, and bench/results/latest.json.
 *
 *   npm run bench                        all of them
 *   npm run bench -- http ingest         only those named (in the order given)
 *   npm run bench -- iocs --explain      arguments after a name go to the benches
 *   BENCH_QUICK=1 npm run bench          smoke run: small data, short durations
 *   npm run bench -- --compare main extract    the same benches on `main` and on this checkout,
 *                                        interleaved, both figures and their ratio (support/compare.ts)
 *
 * With more than one bench, each runs in its own child process (this script again, with
 * BENCH_CHILD_OUT naming where it writes its outcome): a bench's heap, JIT state and leftovers
 * never weigh on the next one (in one process, ingestion measured ~4% lower right after the HTTP
 * bench, and extraction moved ±10% with what ran before it).
 *
 * Each bench's own knobs are documented at the top of its file. Exit code: 0 when every bench
 * ran (a missed target is a measurement, not an error), 1 when one threw (bad answers, a server
 * that died…), 2 for an unknown bench name.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractBench } from './extract.bench.js';
import { httpBench } from './http.bench.js';
import { ingestBench } from './ingest.bench.js';
import { iocsBench } from './iocs.bench.js';
import { triggersBench } from './triggers.bench.js';
import { alertsBench } from './alerts.bench.js';
import { deliveryBench } from './delivery.bench.js';
import { deliveryBacklogBench } from './delivery-backlog.bench.js';
import { huntBench } from './hunt.bench.js';
import { huntOsvBench } from './hunt-osv.bench.js';
import { ingestScaleBench } from './ingest-scale.bench.js';
import { intelOutBench } from './intel-out.bench.js';
import { compare } from './support/compare.js';
import { insightsBench } from './insights.bench.js';
import { evaluationsBench } from './evaluations.bench.js';
import { coverageBench } from './coverage.bench.js';
import { detectBench } from './detect.bench.js';
import { approvalsBench } from './approvals.bench.js';
import { startBench } from './start.bench.js';
import { QUICK, runPendingCleanups, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { describeMachine, formatFigures, formatSummary, machineInfo, type SummaryRow } from './support/report.js';

/**
 * The registry. To add a benchmark (e.g. trigger intake latency, bench/triggers.bench.ts):
 *   1. in the new file, export `const triggersBench: BenchDefinition = { name: 'triggers',
 *      title, run }`, where `run(ctx)` honours ctx.quick, starts what it needs through
 *      bench/support (startBenchDatabase, startChildServer, runLoad; all clean up on failure and
 *      Ctrl-C) and returns { figures, notes, details }; a figure with a `target` lands in the
 *      summary table with its ratio and pass/fail;
 *   2. import it here and append it to BENCHES.
 * Nothing else changes: selection by name, quick mode, the summary and latest.json follow.
 */
const BENCHES: BenchDefinition[] = [httpBench, ingestBench, extractBench, iocsBench, triggersBench, alertsBench, deliveryBench, deliveryBacklogBench, huntBench, huntOsvBench, ingestScaleBench, intelOutBench, insightsBench, evaluationsBench, coverageBench, detectBench, approvalsBench, startBench];

const RESULTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'latest.json');

function select(argv: string[]): { benches: BenchDefinition[]; args: string[] } | string {
  const names = argv.filter((a) => !a.startsWith('-'));
  const args = argv.filter((a) => a.startsWith('-'));
  if (!names.length) return { benches: BENCHES, args };
  const unknown = names.filter((n) => !BENCHES.some((b) => b.name === n));
  if (unknown.length) return `unknown bench ${unknown.join(', ')}; choose from: ${BENCHES.map((b) => b.name).join(', ')}`;
  return { benches: names.map((n) => BENCHES.find((b) => b.name === n)!), args };
}

type ChildResult = { outcome: BenchOutcome } | { error: string };

/** Runs one bench in a child process (stdout/stderr shared) and reads back what it wrote. */
async function runInChild(bench: BenchDefinition, args: string[]): Promise<BenchOutcome> {
  const out = path.join(os.tmpdir(), `rampart-bench-${bench.name}-${process.pid}.json`);
  fs.rmSync(out, { force: true });
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, bench.name, ...args], { stdio: 'inherit', env: { ...process.env, BENCH_CHILD_OUT: out } });
    child.on('error', reject);
    child.on('exit', resolve);
  });
  let result: ChildResult;
  try {
    result = JSON.parse(fs.readFileSync(out, 'utf8')) as ChildResult;
  } catch {
    throw new Error(`the bench process exited with code ${code} without a result`);
  } finally {
    fs.rmSync(out, { force: true });
  }
  if ('error' in result) throw new Error(result.error);
  return result.outcome;
}

/** The child side of runInChild: one bench, its figures printed, its outcome written to `out`. */
async function childMain(out: string, bench: BenchDefinition, args: string[]): Promise<number> {
  let result: ChildResult;
  try {
    const outcome = await bench.run({ quick: QUICK, args, log: (m) => console.log(`[${bench.name}] ${m}`) });
    console.log(formatFigures(bench.title, outcome.figures, outcome.notes));
    result = { outcome };
  } catch (err) {
    result = { error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  } finally {
    await runPendingCleanups();
  }
  fs.writeFileSync(out, JSON.stringify(result));
  return 0;
}

/** `--compare <ref>` taken out of the arguments, or null. */
function compareRef(argv: string[]): { ref: string; rest: string[] } | null | string {
  const i = argv.findIndex((a) => a === '--compare' || a.startsWith('--compare='));
  if (i < 0) return null;
  const inline = argv[i]!.startsWith('--compare=') ? argv[i]!.slice('--compare='.length) : null;
  const ref = inline ?? argv[i + 1];
  if (!ref || ref.startsWith('-')) return '--compare needs a git ref: npm run bench -- --compare <ref> [bench…]';
  return { ref, rest: [...argv.slice(0, i), ...argv.slice(i + (inline === null ? 2 : 1))] };
}

async function mainCompare(ref: string, argv: string[]): Promise<number> {
  const chosen = select(argv);
  if (typeof chosen === 'string') {
    console.error(chosen);
    return 2;
  }
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const before = machineInfo();
  console.log(`machine: ${describeMachine(before)}`);
  const startedAt = new Date();
  const named = argv.some((a) => !a.startsWith('-'));
  const result = await compare(repo, ref, named ? chosen.benches.map((b) => b.name) : [], BENCHES.map((b) => b.name), chosen.args);
  const after = machineInfo();
  console.log(`load average before ${before.loadAverage.join(' / ')}, after ${after.loadAverage.join(' / ')} (1/5/15 min; above ~0.5 per core the machine was shared)`);
  const file = path.join(path.dirname(RESULTS), 'compare.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), quick: QUICK, ref, sha: result.sha, machine: { ...after, loadAverageBefore: before.loadAverage }, rows: result.rows, errors: result.errors }, null, 2)}\n`);
  console.log(`results: ${path.relative(process.cwd(), file)}`);
  return result.errors.length ? 1 : 0;
}

async function main(): Promise<number> {
  const cmp = compareRef(process.argv.slice(2));
  if (typeof cmp === 'string') {
    console.error(cmp);
    return 2;
  }
  if (cmp && !process.env.BENCH_CHILD_OUT) return mainCompare(cmp.ref, cmp.rest);
  const chosen = select(process.argv.slice(2));
  if (typeof chosen === 'string') {
    console.error(chosen);
    return 2;
  }
  const childOut = process.env.BENCH_CHILD_OUT;
  if (childOut) return childMain(childOut, chosen.benches[0]!, chosen.args);
  const isolate = chosen.benches.length > 1;
  const before = machineInfo();
  const startedAt = new Date();
  console.log(`rampart bench${QUICK ? ' (BENCH_QUICK=1)' : ''}: ${chosen.benches.map((b) => b.name).join(', ')}`);
  console.log(`machine: ${describeMachine(before)}`);

  const results: Array<{ name: string; title: string; seconds: number; outcome?: BenchOutcome; error?: string }> = [];
  for (const bench of chosen.benches) {
    console.log(`\n######## ${bench.name}: ${bench.title}`);
    const t0 = performance.now();
    try {
      let outcome: BenchOutcome;
      if (isolate) outcome = await runInChild(bench, chosen.args);
      else {
        outcome = await bench.run({ quick: QUICK, args: chosen.args, log: (m) => console.log(`[${bench.name}] ${m}`) });
        console.log(formatFigures(bench.title, outcome.figures, outcome.notes));
      }
      results.push({ name: bench.name, title: bench.title, seconds: (performance.now() - t0) / 1000, outcome });
    } catch (err) {
      const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
      console.error(`\n[${bench.name}] FAILED: ${message}`);
      results.push({ name: bench.name, title: bench.title, seconds: (performance.now() - t0) / 1000, error: message });
    } finally {
      await runPendingCleanups(); // whatever a failed bench left (servers, databases, temp dirs)
    }
  }

  const after = machineInfo();
  const rows: SummaryRow[] = results.flatMap((r) => (r.outcome?.figures ?? []).filter((f) => f.target).map((figure) => ({ bench: r.name, figure })));
  const errors = results.filter((r) => r.error).map((r) => ({ bench: r.name, message: r.error! }));
  console.log(formatSummary(after, rows, errors, QUICK));
  console.log(`load average before ${before.loadAverage.join(' / ')}, after ${after.loadAverage.join(' / ')} (1/5/15 min; above ~0.5 per core the machine was shared)`);

  fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
  const json = { startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), quick: QUICK, machine: { ...after, loadAverageBefore: before.loadAverage }, benches: results };
  fs.writeFileSync(RESULTS, `${JSON.stringify(json, null, 2)}\n`);
  console.log(`results: ${path.relative(process.cwd(), RESULTS)}`);
  return errors.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    console.error(`\nbench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    await runPendingCleanups();
    process.exit(1);
  },
);
