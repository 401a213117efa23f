/**
 * What every benchmark shares with the runner (bench/run.ts): the shape of a benchmark and of
 * its outcome, the knobs read from the environment, and cleanup that also runs on Ctrl-C, so a
 * failed or interrupted bench never leaves an embedded PostgreSQL, a child server or a temp dir
 * behind.
 */
import type { Figure } from './report.js';

export interface BenchContext {
  /** BENCH_QUICK=1: smaller datasets and shorter runs, for smoke runs; figures are not comparable. */
  quick: boolean;
  /** Extra command-line arguments after the bench's name (e.g. `iocs --explain`). */
  args: string[];
  log(msg: string): void;
}

export interface BenchOutcome {
  /** Rows for the summary table; those with a target get a ratio and pass/fail. */
  figures: Figure[];
  /** One-line remarks printed under the bench's own table (what was measured, caveats). */
  notes: string[];
  /** Everything else worth keeping, written to bench/results/latest.json. */
  details: unknown;
}

export interface BenchDefinition {
  /** The name on the command line: `npm run bench -- <name>`. */
  name: string;
  title: string;
  run(ctx: BenchContext): Promise<BenchOutcome>;
}

/**
 * `--quick` on the command line is the same as BENCH_QUICK=1 (it used to be ignored, so runs
 * written up as quick were full size). The runner exports it to the environment, so each bench's
 * process and both builds of a `--compare` (whose older bench code reads only the variable) agree.
 */
if (process.argv.includes('--quick')) process.env.BENCH_QUICK = '1';
export const QUICK = /^(1|true|yes)$/i.test(process.env.BENCH_QUICK ?? '');

/** A positive number from the environment, or `dflt`. */
export function envNumber(name: string, dflt: number): number {
  const raw = process.env[name];
  if (!raw) return dflt;
  const v = Number(raw);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} must be a positive number, not "${raw}"`);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Cleanup

/** Cleanups still to run, newest last; a signal runs them all (newest first) before exiting. */
const pending = new Set<() => Promise<void>>();
let signalsInstalled = false;

/**
 * Registers `fn` to run once: when the returned function is called (the normal path, in a
 * `finally`), or on SIGINT/SIGTERM, or from runPendingCleanups() after a bench threw.
 */
export function onCleanup(fn: () => Promise<void>): () => Promise<void> {
  let done = false;
  const once = async () => {
    if (done) return;
    done = true;
    pending.delete(once);
    await fn();
  };
  pending.add(once);
  if (!signalsInstalled) {
    signalsInstalled = true;
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.once(sig, () => {
        console.error(`\n${sig}: cleaning up`);
        void runPendingCleanups().finally(() => process.exit(130));
      });
    }
  }
  return once;
}

/** Runs whatever cleanups are still registered (newest first), ignoring their errors. */
export async function runPendingCleanups(): Promise<void> {
  for (const c of [...pending].reverse()) await c().catch(() => {});
}
