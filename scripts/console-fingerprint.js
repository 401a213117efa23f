// @ts-check
/**
 * Whether dist/web holds a build of the console's current sources: plain JavaScript, so that
 * `npm start` and `prepare` check it without starting tsx (scripts/build-if-stale.js); the
 * build itself (scripts/build-console.ts) writes the same fingerprint.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WEB = path.join(ROOT, 'web');
export const DIST = path.join(ROOT, 'dist/web');
export const FINGERPRINT = path.join(DIST, '.fingerprint');

/** Files under a folder, recursively, sorted. */
export function files(/** @type {string} */ dir) {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** Server files the console imports (one rule for both sides: the CSV cell rule). */
const SHARED = ['src/platform/csv.ts'];

/** Everything the output depends on: the console's sources, the shared files and the locked dependency versions. */
export function sourceFingerprint() {
  const hash = createHash('sha256');
  for (const file of [...files(WEB), ...SHARED.map((f) => path.join(ROOT, f)), path.join(ROOT, 'package-lock.json')]) {
    hash.update(path.relative(ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

export function isConsoleFresh() {
  return fs.existsSync(FINGERPRINT) && fs.readFileSync(FINGERPRINT, 'utf8') === sourceFingerprint();
}
