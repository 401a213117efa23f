/**
 * Runs the service in this process: the compiled build in dist/server when `state` says it is
 * 'fresh', otherwise the TypeScript sources through tsx, saying why on stderr (so an edited src/
 * never runs stale code). Shared by `bin/rampart.js` and `npm start` (scripts/start.js), so that
 * `npm start` checks, builds and runs in one Node process instead of two.
 */
import module from 'node:module';
import { pathToFileURL } from 'node:url';
import { SERVER_MAIN } from './build-server.js';

/** @param {string} state 'fresh', or why the compiled build is not used */
export async function runServer(state) {
  if (state === 'fresh') {
    // Node ≥ 22.1 keeps V8's compiled code of every module on disk between starts (a no-op on 20).
    /** @type {{ enableCompileCache?: () => unknown }} */ (module).enableCompileCache?.();
    await import(pathToFileURL(SERVER_MAIN).href);
    return;
  }
  process.stderr.write(`rampart: running the TypeScript sources through tsx: ${state}\n`);
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/main.ts', import.meta.url).href);
}
