// @ts-check
/**
 * Builds the server's JavaScript: every non-test TypeScript file under src/ (and the HTTP bench's
 * server children, bench/servers/) transpiled one to one with esbuild into dist/server/, keeping
 * the repository's layout (dist/server/src/main.js), plus the non-TypeScript files src/ reads
 * beside its code (the ATT&CK catalog). Nothing is bundled: packages stay in node_modules and
 * every relative import keeps meaning the same file. `bin/rampart.js` runs this build when its
 * stamp matches the sources, else the sources through tsx (docs/operations.md).
 *
 * Plain JavaScript, not TypeScript, so that `bin/rampart.js` can check freshness without
 * loading tsx (the point of the build is not paying for it). `--if-stale` (npm install's
 * `prepare`, `npm start`) builds only when the stamp differs.
 *
 *   node scripts/build-server.js [--if-stale]
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_DIST = path.join(ROOT, 'dist/server');
/** The compiled entry point `bin/rampart.js` imports. */
export const SERVER_MAIN = path.join(SERVER_DIST, 'src/main.js');
const STAMP = path.join(SERVER_DIST, '.stamp');
/** Folders whose files are built (tests excluded); the build script itself counts as a source. */
const SOURCE_DIRS = ['src', 'bench/servers'];
const isTest = (/** @type {string} */ f) => /\.test\.ts$/.test(f);

/** Source files (repository-relative, sorted): TypeScript to transpile, anything else to copy. */
function sourceFiles(root = ROOT) {
  /** @type {string[]} */
  const out = [];
  for (const dir of SOURCE_DIRS) {
    const abs = path.join(root, dir);
    if (!fs.existsSync(abs)) continue;
    for (const e of fs.readdirSync(abs, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const rel = path.relative(root, path.join(e.parentPath, e.name));
      if (!isTest(rel)) out.push(rel);
    }
  }
  return out.sort();
}

/**
 * The stamp: a hash of every source's path, size and modification time, and of this script.
 * Metadata only (no file is read), so checking it at every start costs a few milliseconds
 * (docs/performance.md); an edit, a new, renamed or deleted file, or a checkout changes it.
 */
export function sourceStamp(root = ROOT) {
  const hash = createHash('sha256');
  for (const rel of [...sourceFiles(root), 'scripts/build-server.js']) {
    const st = fs.statSync(path.join(root, rel));
    hash.update(`${rel}\0${st.size}\0${st.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

/**
 * Whether dist/server holds a build of the current sources: 'fresh', or why not (for the
 * one line `bin/rampart.js` prints before running the sources through tsx instead).
 */
export function serverBuildState(root = ROOT) {
  const stampFile = path.join(root, 'dist/server/.stamp');
  if (!fs.existsSync(stampFile)) return 'no compiled build in dist/server (run `node scripts/build-server.js`)';
  if (fs.readFileSync(stampFile, 'utf8') !== sourceStamp(root)) return 'the sources changed since dist/server was built (`node scripts/build-server.js` rebuilds it)';
  return 'fresh';
}

/** Builds dist/server from scratch (a stale file of a deleted source must not linger); returns whether it built. */
export async function buildServer(opts = { ifStale: false }) {
  if (opts.ifStale && serverBuildState() === 'fresh') return false;
  const stamp = sourceStamp();
  const files = sourceFiles();
  const { buildSync } = await import('esbuild');
  fs.rmSync(SERVER_DIST, { recursive: true, force: true });
  buildSync({
    entryPoints: files.filter((f) => f.endsWith('.ts')).map((f) => path.join(ROOT, f)),
    outdir: SERVER_DIST,
    outbase: ROOT,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Stack traces name the TypeScript line (node --enable-source-maps); the maps stay beside the code.
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  for (const rel of files.filter((f) => !f.endsWith('.ts'))) {
    fs.mkdirSync(path.dirname(path.join(SERVER_DIST, rel)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, rel), path.join(SERVER_DIST, rel));
  }
  // Written last: an interrupted build has no stamp, so it is never taken for a fresh one.
  fs.writeFileSync(STAMP, stamp);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const t0 = performance.now();
  const built = await buildServer({ ifStale: process.argv.includes('--if-stale') });
  process.stdout.write(`server ${built ? `built in dist/server (${Math.round(performance.now() - t0)} ms)` : 'build up to date in dist/server'}\n`);
}
