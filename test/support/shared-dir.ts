import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The team's `shared/` folder (fixtures, interop clients and schemas): RAMPART_SHARED_DIR when
 * set (an absolute path: `npm run bench -- --compare` passes the checkout's own to the ref it
 * exports under the temp dir, where no `shared/` sits beside it), else the nearest `shared/`
 * beside the checkout or one of its parents (`../shared` from a clone, further up from a
 * worktree), else `/work/shared`. Tests and benches that need it skip with a message when it is absent.
 */
function findShared(): string {
  if (process.env.RAMPART_SHARED_DIR) return path.resolve(process.env.RAMPART_SHARED_DIR);
  let dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  for (let i = 0; i < 4; i++) {
    const candidate = path.join(path.dirname(dir), 'shared');
    if (fs.existsSync(path.join(candidate, 'interop')) || fs.existsSync(path.join(candidate, 'fixtures'))) return candidate;
    dir = path.dirname(dir);
  }
  return '/work/shared';
}

export const SHARED_DIR = findShared();

/** A path under the shared folder: `sharedPath('fixtures/sigma')`. */
export const sharedPath = (...parts: string[]): string => path.join(SHARED_DIR, ...parts);

/**
 * Whether that path is there. A test that reads it skips when it is not
 * (`describe.skipIf(!hasShared('fixtures/sigma'))(…)`), so a checkout without the team's folder
 * runs everything else.
 */
export const hasShared = (...parts: string[]): boolean => fs.existsSync(sharedPath(...parts));
