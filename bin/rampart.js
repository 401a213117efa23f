#!/usr/bin/env node
// The `rampart` command: runs the compiled JavaScript in dist/server (built at install by
// `prepare`, and by `npm start`) when it was built from the current sources; otherwise the
// TypeScript sources through tsx, saying why, so that an edited src/ never runs stale code.
// RAMPART_RUN_FROM_SOURCE=1 forces tsx (docs/operations.md).
import module from 'node:module';
import { pathToFileURL } from 'node:url';
import { SERVER_MAIN, serverBuildState } from '../scripts/build-server.js';

const state = process.env.RAMPART_RUN_FROM_SOURCE === '1' ? 'RAMPART_RUN_FROM_SOURCE=1' : serverBuildState();
if (state === 'fresh') {
  // Node ≥ 22.1 keeps V8's compiled code of every module on disk between starts (a no-op on 20).
  module.enableCompileCache?.();
  await import(pathToFileURL(SERVER_MAIN).href);
} else {
  process.stderr.write(`rampart: running the TypeScript sources through tsx: ${state}\n`);
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
