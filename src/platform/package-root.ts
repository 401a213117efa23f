import fs from 'node:fs';
import path from 'node:path';

/**
 * The folder holding Rampart's package.json, found by walking up from this file: the same answer
 * whether the code runs from src/ (tsx) or from the compiled build in dist/server/src/, whose
 * depth differs (docs/operations.md). Paths to files outside the code (dist/web) start here.
 */
function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PACKAGE_ROOT = findPackageRoot(import.meta.dirname);
