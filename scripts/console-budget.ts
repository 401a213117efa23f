import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/** The console's budget: JavaScript the browser must fetch before the first screen, gzipped. */
export const BUDGET_BYTES = 250_000;

/**
 * The scripts index.html loads (the entry and its modulepreload links): lazily loaded screens
 * are not counted, they load when opened.
 */
export function initialJavaScript(dist: string): { files: string[]; gzipBytes: number } {
  const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
  const refs = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="([^"]+\.js)"/g)].map((m) => m[1]!);
  const files = [...new Set(refs)];
  const gzipBytes = files.reduce((sum, ref) => sum + zlib.gzipSync(fs.readFileSync(path.join(dist, ref)), { level: 9 }).length, 0);
  return { files, gzipBytes };
}
