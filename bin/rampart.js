#!/usr/bin/env node
// The `rampart` command: runs the compiled JavaScript in dist/server (built at install by
// `prepare`, and by `npm start`) when it was built from the current sources; otherwise the
// TypeScript sources through tsx, saying why, so that an edited src/ never runs stale code.
// RAMPART_RUN_FROM_SOURCE=1 forces tsx (docs/operations.md).
import { serverBuildState } from '../scripts/build-server.js';
import { runServer } from '../scripts/run-server.js';
import { stopWhenPackageManagerGoes } from '../scripts/stop-with-npm.js';

// `npm run rampart -- start`, `npx rampart start`: the server stops when npm goes (scripts/stop-with-npm.js).
stopWhenPackageManagerGoes();

await runServer(process.env.RAMPART_RUN_FROM_SOURCE === '1' ? 'RAMPART_RUN_FROM_SOURCE=1' : serverBuildState());
