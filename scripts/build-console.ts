import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { DIST, FINGERPRINT, WEB, files, isConsoleFresh, sourceFingerprint } from './console-fingerprint.js';

/**
 * Builds the web console (web/ → dist/web) with Vite and writes a .br and a .gz beside every
 * text asset, so the server sends them without compressing per request. `--if-stale` skips the
 * build when dist/web was built from the same sources (scripts/console-fingerprint.js; npm
 * install's `prepare` and `npm start` check it through scripts/build-if-stale.js, so a fresh
 * clone serves the console with no extra command).
 */
export { DIST };
const COMPRESSIBLE = new Set(['.js', '.css', '.html', '.svg', '.json', '.txt']);

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
