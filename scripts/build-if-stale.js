// @ts-check
/**
 * What npm's `prepare` runs (and `npm start`, through scripts/start.js): builds the web console
 * and the compiled server only where their sources changed. Plain Node, so that the usual case
 * (both up to date) costs a stat of each source, not tsx's start-up (issue 50: `npm start` →
 * ready). The console's build needs Vite's TypeScript config, so only a stale console starts tsx.
 *
 *   node scripts/build-if-stale.js
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isConsoleFresh } from './console-fingerprint.js';
import { buildServer } from './build-server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Builds what is stale; exits the process with the console build's status when that fails. */
export async function buildIfStale() {
  if (!isConsoleFresh()) {
    const tsx = path.join(ROOT, 'node_modules/.bin/tsx');
    const built = spawnSync(tsx, [path.join(ROOT, 'scripts/build-console.ts'), '--if-stale'], { stdio: 'inherit' });
    if (built.status !== 0) process.exit(built.status ?? 1);
  }
  const t0 = performance.now();
  if (await buildServer({ ifStale: true })) process.stdout.write(`server built in dist/server (${Math.round(performance.now() - t0)} ms)\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await buildIfStale();
