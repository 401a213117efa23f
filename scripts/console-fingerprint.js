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
/** The metadata stamp of the sources last found to match FINGERPRINT (written by isConsoleFresh). */
const METADATA_STAMP = path.join(DIST, '.fingerprint-metadata');

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
const inputs = () => [...files(WEB), ...SHARED.map((f) => path.join(ROOT, f)), path.join(ROOT, 'package-lock.json')];

/** The inputs hashed by path and content: what the build records in FINGERPRINT. */
export function sourceFingerprint() {
  const hash = createHash('sha256');
  for (const file of inputs()) {
    hash.update(path.relative(ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** The inputs hashed by path, size and modification time: no file is read (a stat each). */
export function sourceMetadataStamp() {
  const hash = createHash('sha256');
  for (const file of inputs()) {
    const st = fs.statSync(file);
    hash.update(`${path.relative(ROOT, file)}\0${st.size}\0${st.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

/**
 * Whether dist/web was built from the current inputs. The metadata stamp is checked first (a
 * stat per file, what every `npm start` pays); only when it differs (after a build, an edit, a
 * checkout, a `touch`) are the inputs read and hashed (~1.8 MB, 100+ ms on the 2-core machine
 * under load), and a match records the new metadata stamp so the next check is quick again.
 * The metadata is taken before the contents: a file edited in between differs next time.
 */
export function isConsoleFresh() {
  if (!fs.existsSync(FINGERPRINT)) return false;
  const metadata = sourceMetadataStamp();
  const built = fs.readFileSync(FINGERPRINT, 'utf8');
  if (fs.existsSync(METADATA_STAMP) && fs.readFileSync(METADATA_STAMP, 'utf8') === `${built}\n${metadata}`) return true;
  if (built !== sourceFingerprint()) return false;
  try {
    fs.writeFileSync(METADATA_STAMP, `${built}\n${metadata}`);
  } catch {
    // A read-only installation: the contents are hashed again at the next check.
  }
  return true;
}
