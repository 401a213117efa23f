/**
 * `npm run bench -- --compare <git-ref> [bench…]`: the same benches on two builds, the ref's and
 * this checkout's (uncommitted changes included), interleaved on the same machine, then both
 * figures side by side with their ratio. Regressions that a single run hides in the machine's
 * noise (a shared 2-core machine moves wall-clock figures by ±30%) show when both builds take
 * turns under the same load.
 *
 * - The ref is exported with `git archive` into a directory of the system temp dir named after
 *   its commit (reused by the next compare of the same commit) — nothing is added to the
 *   repository, unlike a registered `git worktree` — and it runs on this checkout's
 *   node_modules (symlinked; a different package-lock.json is reported) and dist/web (the
 *   console, which no bench measures); its dist/server is its own, built by its bench.
 * - Each bench runs in its own process per build and round (the ref's own bench/run.ts, so the
 *   ref measures with its own bench code); rounds alternate which build goes first (A B, B A, …)
 *   so a drift in the machine's load weighs on both. The median of the rounds is compared.
 * - Benches the ref does not have are skipped; figures only one side has are listed alone.
 *
 * Knobs: BENCH_COMPARE_ROUNDS (2), BENCH_COMPARE_CODE=current (the ref measured by this
 * checkout's bench/ instead of its own), BENCH_COMPARE_CONCURRENT=1 (each round runs both builds
 * AT ONCE, their output prefixed [A]/[B]: a swing of the machine then lands on both, which turn
 * taking cannot promise on a shared VM whose rounds differ by ±20%; CPU per operation is the figure
 * to read, as wall-clock and latency figures include the other build's contention, and the two
 * set-ups do not end at the same moment), plus every bench's own knobs (passed to both builds).
 * For webhook intake, `npm run bench:paired` (bench/compare-paired.ts) goes further: one
 * request to each build per tick, the ratio per round.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { BenchOutcome } from './harness.js';
import { envNumber } from './harness.js';
import { table, type Figure } from './report.js';
import { SHARED_DIR } from '../../test/support/shared-dir.js';

interface Build {
  label: string;
  dir: string;
}

type RunResult = { outcome: BenchOutcome } | { error: string };

const git = (cwd: string, args: string[], input?: Buffer) => execFileSync('git', args, { cwd, maxBuffer: 1 << 30, ...(input ? { input } : {}) });

/**
 * The ref's tree in <tmp>/rampart-bench-ref-<sha> (exported once, then reused). With
 * `currentBenchCode`, this checkout's bench/ replaces the ref's (in a directory of its own), so
 * both builds are measured by the same bench code: figures the ref's benches did not report yet
 * (CPU per request…) can be compared too, as long as the bench code runs against the ref's src/.
 */
export function exportRef(repo: string, ref: string, currentBenchCode = false): Build & { sha: string; lockDiffers: boolean } {
  let sha: string;
  try {
    sha = git(repo, ['rev-parse', '--verify', `${ref}^{commit}`]).toString().trim();
  } catch {
    throw new Error(`--compare: "${ref}" is not a commit of this repository`);
  }
  const dir = path.join(os.tmpdir(), `rampart-bench-ref-${sha.slice(0, 12)}${currentBenchCode ? '-current-bench' : ''}`);
  if (!fs.existsSync(path.join(dir, '.exported'))) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const tar = git(repo, ['archive', '--format=tar', sha]);
    execFileSync('tar', ['-x', '-C', dir], { input: tar, maxBuffer: 1 << 30 });
    fs.writeFileSync(path.join(dir, '.exported'), `${sha}\n`);
  }
  if (currentBenchCode) {
    fs.rmSync(path.join(dir, 'bench'), { recursive: true, force: true });
    fs.cpSync(path.join(repo, 'bench'), path.join(dir, 'bench'), { recursive: true, filter: (src) => !src.includes(`${path.sep}results`) });
  }
  // This checkout's bench code starts the servers from the compiled build (build-server.js).
  if (currentBenchCode) fs.copyFileSync(path.join(repo, 'scripts/build-server.js'), path.join(dir, 'scripts/build-server.js'));
  // dist/server stays the ref's own (its bench builds it from its sources); the console is shared.
  if (fs.lstatSync(path.join(dir, 'dist'), { throwIfNoEntry: false })?.isSymbolicLink()) fs.rmSync(path.join(dir, 'dist'));
  fs.mkdirSync(path.join(dir, 'dist'), { recursive: true });
  for (const shared of ['node_modules', 'dist/web']) {
    const link = path.join(dir, shared);
    const target = path.join(repo, shared);
    // A link left by another checkout (a removed worktree's: dangling) points at this one's instead.
    if (fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() && fs.readlinkSync(link) !== target) fs.rmSync(link);
    if (!fs.lstatSync(link, { throwIfNoEntry: false }) && fs.existsSync(target)) fs.symlinkSync(target, link, 'dir');
  }
  const lock = (d: string) => (fs.existsSync(path.join(d, 'package-lock.json')) ? fs.readFileSync(path.join(d, 'package-lock.json'), 'utf8') : '');
  return { label: ref, dir, sha, lockDiffers: lock(dir) !== lock(repo) };
}

/** The bench names a build's bench/run.ts registers (read from its BENCHES line). */
function benchNames(dir: string): string[] | null {
  const src = fs.readFileSync(path.join(dir, 'bench', 'run.ts'), 'utf8');
  const line = /const BENCHES[^=]*=\s*\[([^\]]*)\]/.exec(src)?.[1];
  if (!line) return null;
  // Variable names (httpBench, intelOutBench) → bench names (http, intel-out).
  return line
    .split(',')
    .map((v) => v.trim().replace(/Bench$/, ''))
    .filter(Boolean)
    .map((v) => v.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));
}

/** One bench on one build, in a child process; its outcome from BENCH_CHILD_OUT, or the build's latest.json for refs older than that. */
/** One bench run of one build in its own process; `prefix` pipes its output with that prefix on each line (concurrent runs). */
async function runOne(build: Build, bench: string, args: string[], prefix?: string): Promise<RunResult> {
  const out = path.join(os.tmpdir(), `rampart-bench-compare-${bench}-${process.pid}-${prefix ? prefix.replace(/\W/g, '') : 'solo'}.json`);
  const latest = path.join(build.dir, 'bench', 'results', 'latest.json');
  fs.rmSync(out, { force: true });
  const started = Date.now();
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, path.join(build.dir, 'bench', 'run.ts'), bench, ...args], {
      cwd: build.dir,
      stdio: prefix ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      // The shared folder (fixtures) as this checkout finds it: an exported ref under the temp dir has none beside it.
      env: { ...process.env, RAMPART_SHARED_DIR: SHARED_DIR, BENCH_CHILD_OUT: out },
    });
    if (prefix) for (const stream of [child.stdout!, child.stderr!]) readline.createInterface({ input: stream }).on('line', (line) => console.log(`${prefix} ${line}`));
    child.on('error', reject);
    child.on('exit', resolve);
  });
  try {
    if (fs.existsSync(out)) return JSON.parse(fs.readFileSync(out, 'utf8')) as RunResult;
    if (fs.existsSync(latest) && fs.statSync(latest).mtimeMs >= started) {
      const json = JSON.parse(fs.readFileSync(latest, 'utf8')) as { benches: Array<{ name: string; outcome?: BenchOutcome; error?: string }> };
      const r = json.benches.find((b) => b.name === bench);
      if (r?.outcome) return { outcome: r.outcome };
      if (r?.error) return { error: r.error };
    }
    return { error: `exited with code ${code} without a result` };
  } finally {
    fs.rmSync(out, { force: true });
  }
}

const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const fmt = (v: number, digits: number) => (Number.isFinite(v) ? v.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a');

/** better / worse when the figure has a target (its direction), and the change is beyond 3%. */
function judge(f: Figure, ratio: number): string {
  if (!f.target || !Number.isFinite(ratio) || Math.abs(ratio - 1) < 0.03) return '';
  const higherIsBetter = f.target.kind === 'min';
  return (ratio > 1) === higherIsBetter ? 'better' : 'WORSE';
}

export interface CompareRow {
  bench: string;
  figure: string;
  unit: string;
  digits: number;
  ref: number[];
  current: number[];
  ratio: number;
  verdict: string;
}

/** Runs the comparison, prints it, and returns the rows (for latest.json) and the benches that failed. */
export async function compare(repo: string, ref: string, names: string[], allNames: string[], args: string[]): Promise<{ rows: CompareRow[]; errors: string[]; sha: string }> {
  const rounds = Math.round(envNumber('BENCH_COMPARE_ROUNDS', 2));
  const currentBenchCode = /^current$/i.test(process.env.BENCH_COMPARE_CODE ?? '');
  const concurrent = /^(1|true|yes)$/i.test(process.env.BENCH_COMPARE_CONCURRENT ?? '');
  const a = exportRef(repo, ref, currentBenchCode);
  const b: Build = { label: 'current', dir: repo };
  const refBenches = benchNames(a.dir);
  const wanted = names.length ? names : allNames;
  const runnable = wanted.filter((n) => !refBenches || refBenches.includes(n));
  const skipped = wanted.filter((n) => !runnable.includes(n));
  console.log(`compare: ${ref} (${a.sha.slice(0, 12)}, exported to ${a.dir}) vs this checkout, ${rounds} ${concurrent ? 'concurrent' : 'interleaved'} round(s) per bench, ${currentBenchCode ? "both measured by this checkout's bench code" : "each measured by its own bench code"}`);
  if (a.lockDiffers) console.log(`note: ${ref}'s package-lock.json differs from this checkout's; it runs on this checkout's node_modules`);
  if (skipped.length) console.log(`note: ${ref} has no bench ${skipped.join(', ')} (skipped)`);

  const rows: CompareRow[] = [];
  const errors: string[] = [];
  for (const bench of runnable) {
    const results: Record<'ref' | 'current', BenchOutcome[]> = { ref: [], current: [] };
    for (let round = 0; round < rounds && concurrent; round++) {
      console.log(`\n######## ${bench}, round ${round + 1}/${rounds}: [A] ${ref} (${a.sha.slice(0, 12)}) and [B] current at once`);
      const both = await Promise.all([runOne(a, bench, args, '[A]'), runOne(b, bench, args, '[B]')]);
      for (const [side, r] of [['ref', both[0]], ['current', both[1]]] as const) {
        if ('error' in r) errors.push(`${bench} on ${side}: ${r.error.split('\n')[0]}`);
        else results[side].push(r.outcome);
      }
    }
    for (let round = 0; round < rounds && !concurrent; round++) {
      const order: Array<['ref' | 'current', Build]> = round % 2 === 0 ? [['ref', a], ['current', b]] : [['current', b], ['ref', a]];
      for (const [side, build] of order) {
        console.log(`\n######## ${bench} on ${side === 'ref' ? `${ref} (${a.sha.slice(0, 12)})` : 'current'}, round ${round + 1}/${rounds}`);
        const r = await runOne(build, bench, args);
        if ('error' in r) errors.push(`${bench} on ${side}: ${r.error.split('\n')[0]}`);
        else results[side].push(r.outcome);
      }
    }
    const figures = new Map<string, Figure>();
    for (const o of [...results.current, ...results.ref]) for (const f of o.figures) if (!figures.has(f.name)) figures.set(f.name, f);
    for (const [name, f] of figures) {
      const values = (side: 'ref' | 'current') => results[side].map((o) => o.figures.find((x) => x.name === name)?.value).filter((v): v is number => v !== undefined);
      const ref = values('ref');
      const current = values('current');
      const ratio = median(current) / median(ref);
      rows.push({ bench, figure: name, unit: f.unit, digits: f.digits ?? 0, ref, current, ratio, verdict: judge(f, ratio) });
    }
  }

  const body = rows.map((r) => {
    const list = (xs: number[]) => (xs.length > 1 ? ` (${xs.map((x) => fmt(x, r.digits)).join(', ')})` : '');
    return [r.bench, r.unit ? `${r.figure} [${r.unit}]` : r.figure, `${fmt(median(r.ref), r.digits)}${list(r.ref)}`, `${fmt(median(r.current), r.digits)}${list(r.current)}`, Number.isFinite(r.ratio) ? `${r.ratio.toFixed(3)}×` : 'n/a', r.verdict];
  });
  for (const e of errors) body.push(['', `ERROR: ${e.slice(0, 120)}`, '', '', '', '']);
  console.log(
    [
      '\n==================== compare ====================',
      `A = ${ref} (${a.sha.slice(0, 12)}), B = this checkout; median of ${rounds} ${concurrent ? 'concurrent' : 'interleaved'} round(s) (each round's value in brackets)`,
      '',
      table(['bench', 'figure', 'A', 'B', 'B / A', ''], body, [2, 3, 4]),
      '(better/WORSE: a change beyond 3% in the direction of the figure\'s target; figures without a target have no direction)',
      '',
    ].join('\n'),
  );
  return { rows, errors, sha: a.sha };
}
