// @ts-check
/**
 * `npm start`: builds the console and the server where their sources changed
 * (scripts/build-if-stale.js), then runs `rampart start` in the same Node process
 * (scripts/run-server.js) — one Node start-up and one freshness check instead of two
 * (issue 50: `npm start` → ready < 1 s on a warm install). Arguments after `npm start --` go to
 * `rampart start` as before.
 *
 *   node scripts/start.js [flags of rampart start]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from './build-if-stale.js';
import { runServer } from './run-server.js';
import { stopWhenPackageManagerGoes } from './stop-with-npm.js';

// The server stops when npm goes (killed, or its terminal closed), instead of living on as an orphan.
stopWhenPackageManagerGoes();
await buildIfStale();
// What src/main.ts reads: the command, then its arguments, as `node bin/rampart.js start …` gave them.
process.argv.splice(1, process.argv.length - 1, path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/rampart.js'), 'start', ...process.argv.slice(2));
// buildIfStale left a build of the current sources (it built one, or found one), unless told to run the sources.
await runServer(process.env.RAMPART_RUN_FROM_SOURCE === '1' ? 'RAMPART_RUN_FROM_SOURCE=1' : 'fresh');
