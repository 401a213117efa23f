import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

/**
 * Builds the web console (web/ → dist/web) with Vite and writes a .br and a .gz beside every
 * text asset, so the server sends them without compressing per request. `--if-stale` skips the
 * build when dist/web was built from the same sources (npm install's `prepare` and `npm start`
 * both call it, so a fresh clone serves the console with no extra command).
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEB = path.join(ROOT, 'web');
export const DIST = path.join(ROOT, 'dist/web');
const FINGERPRINT = path.join(DIST, '.fingerprint');
const COMPRESSIBLE = new Set(['.js', '.css', '.html', '.svg', '.json', '.txt']);

function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** Server files the console imports (one rule for both sides: the CSV cell rule). */
const SHARED = ['src/platform/csv.ts'];

/** Everything the output depends on: the console's sources, the shared files and the locked dependency versions. */
function sourceFingerprint(): string {
  const hash = createHash('sha256');
  for (const file of [...files(WEB), ...SHARED.map((f) => path.join(ROOT, f)), path.join(ROOT, 'package-lock.json')]) {
    hash.update(path.relative(ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

export function isConsoleFresh(): boolean {
  return fs.existsSync(FINGERPRINT) && fs.readFileSync(FINGERPRINT, 'utf8') === sourceFingerprint();
}

function precompress(dir: string): void {
  for (const file of files(dir)) {
    if (!COMPRESSIBLE.has(path.extname(file))) continue;
    const body = fs.readFileSync(file);
    fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }));
    fs.writeFileSync(`${file}.gz`, zlib.gzipSync(body, { level: 9 }));
  }
}

export async function buildConsole(opts: { ifStale?: boolean } = {}): Promise<boolean> {
  if (opts.ifStale && isConsoleFresh()) return false;
  const fingerprint = sourceFingerprint();
  const { build } = await import('vite');
  await build({ configFile: path.join(WEB, 'vite.config.ts'), logLevel: 'warn' });
  precompress(DIST);
  fs.writeFileSync(FINGERPRINT, fingerprint);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const ifStale = process.argv.includes('--if-stale');
  const built = await buildConsole({ ifStale });
  const { initialJavaScript, BUDGET_BYTES } = await import('./console-budget.js');
  const initial = initialJavaScript(DIST);
  process.stdout.write(`web console ${built ? 'built' : 'up to date'} in dist/web; initial JavaScript ${(initial.gzipBytes / 1000).toFixed(1)} kB gzipped (budget ${BUDGET_BYTES / 1000} kB)\n`);
  if (initial.gzipBytes > BUDGET_BYTES) {
    process.stderr.write(`the console's initial JavaScript is over budget: ${initial.files.join(', ')}\n`);
    process.exit(1);
  }
}
