import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort, killAll, spawnLogged } from '../support/processes.js';
import { waitForReadyz } from '../support/readyz.js';

/**
 * The process's life as users meet it (issue 50, lifecycle): `npm start` killed (its server must
 * not live on as an orphan holding the port and the embedded PostgreSQL), and a stop signal
 * while the service is still starting (the start abandoned, PostgreSQL stopped, exit 0). Real
 * processes: npm, its shell, the server and PostgreSQL, in a copy of the checkout (the
 * worktree's dist/ is left alone; a fresh build is copied, a stale one is rebuilt there once).
 * Every wait is on a state; the limit only bounds a hang, which is what the defects look like.
 */
const PROCESS_LIMIT = 180_000;
vi.setConfig({ testTimeout: 2 * PROCESS_LIMIT });

const ROOT = path.resolve(import.meta.dirname, '../..');
const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-lifecycle-'));
const children = new Set<ChildProcess>();

beforeAll(() => {
  for (const entry of ['package.json', 'package-lock.json', 'bin', 'scripts', 'src', 'web', 'bench/servers', 'dist']) {
    if (fs.existsSync(path.join(ROOT, entry))) fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
});

afterAll(() => {
  killAll(children);
  fs.rmSync(copy, { recursive: true, force: true });
});


/** The server of `dataDir` stopped and cleaned up: its lock released and its PostgreSQL stopped by it. */
async function expectStoppedCleanly(dataDir: string, log: () => string): Promise<void> {
  await vi.waitFor(
    () => {
      expect(fs.existsSync(path.join(dataDir, 'rampart.lock')), 'the lock is released').toBe(false);
      expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid')), 'PostgreSQL is stopped').toBe(false);
    },
    { timeout: PROCESS_LIMIT, interval: 100 },
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${log().slice(-3000)}`);
  });
  await vi.waitFor(() => expect(log()).toContain('"msg":"stopped"'), { timeout: 10_000 });
}

/** A process in the copy of the checkout, with a minimal environment (no DATABASE_URL of the test run's) and debug logs. */
function spawnInCopy(command: string, args: string[], env: Record<string, string>, opts: { detached?: boolean } = {}) {
  return spawnLogged(command, args, { cwd: copy, env: { PATH: process.env.PATH ?? '', HOME: os.homedir(), LOG_LEVEL: 'debug', ...env }, ...opts }, children);
}

describe('npm start and its server', () => {
  // One data dir: the first start initialises it, the second is a warm start.
  const dataDir = path.join(copy, '.rampart-npm');
  for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
    it(`the server stops cleanly when npm gets ${signal} (a process manager, a closed terminal)`, async () => {
      const port = await freePort();
      const npm = spawnInCopy('npm', ['start'], { RAMPART_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' });
      await waitForReadyz(`http://127.0.0.1:${port}`, { child: npm.child, log: npm.log, timeoutMs: PROCESS_LIMIT });
      npm.child.kill(signal);
      // npm is gone; the server (its grandchild, behind npm's shell) must notice and stop in order.
      await expectStoppedCleanly(dataDir, npm.log);
      expect(npm.log()).toMatch(/rampart: (npm \(pid \d+\), which started this process,|the process that started this one \(pid \d+, npm or its shell\)) is gone; stopping/);
      expect(npm.log()).toContain('"msg":"shutting down: finishing in-flight requests and jobs"');
      await vi.waitFor(() => expect(fetch(`http://127.0.0.1:${port}/readyz`)).rejects.toThrow(), { timeout: 10_000 });
    });
  }
});

describe('a stop signal while the service starts', () => {
  it('abandons the start: PostgreSQL stopped, the lock released, one line, exit 0', async () => {
    // A first start: the cluster is initialised, then started, then migrated; SIGTERM as soon as
    // PostgreSQL's process is spawned, long before the role is ready.
    const dataDir = path.join(copy, '.rampart-signal');
    const port = await freePort();
    const server = spawnInCopy(process.execPath, ['bin/rampart.js', 'start'], { RAMPART_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' });
    await vi.waitFor(() => expect(server.log()).toContain('"msg":"start: PostgreSQL spawned"'), { timeout: PROCESS_LIMIT, interval: 5 });
    server.child.kill('SIGTERM');
    expect(await server.exited, server.log().slice(-3000)).toBe(0);
    expect(server.log()).toMatch(/"signal":"SIGTERM".*"msg":"start abandoned on SIGTERM: stopping the database \(the embedded PostgreSQL\)"/);
    expect(server.log()).not.toContain('rampart ready');
    await expectStoppedCleanly(dataDir, server.log);
  });
});

describe('Ctrl-C in a terminal (SIGINT to the whole foreground process group)', () => {
  const KEY = `rmp_ctrlc001_${'C'.repeat(43)}`;
  const dataDir = path.join(copy, '.rampart-ctrl-c');

  /**
   * `rampart start` as a terminal runs it, in a process group of its own, with a source sync in
   * flight: its feed (a local server) takes the request and never answers, so the graceful stop
   * has a running job to wait for.
   */
  async function startWithJobInFlight() {
    let feedAsked!: () => void;
    const asked = new Promise<void>((resolve) => (feedAsked = resolve));
    const feed = http.createServer(() => feedAsked());
    await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
    const feedPort = (feed.address() as AddressInfo).port;
    const port = await freePort();
    // detached: a process group of its own, as a terminal's foreground job has.
    const server = spawnInCopy(
      process.execPath,
      ['bin/rampart.js', 'start'],
      { RAMPART_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', RAMPART_BOOTSTRAP_API_KEY: KEY, RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' },
      { detached: true },
    );
    const base = `http://127.0.0.1:${port}`;
    await waitForReadyz(base, { child: server.child, log: server.log, timeoutMs: PROCESS_LIMIT });
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/sources`, { method: 'POST', headers, body: JSON.stringify({ kind: 'rss', name: 'Never answers', feedUrl: `http://127.0.0.1:${feedPort}/feed.xml` }) });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    expect((await fetch(`${base}/sources/${id}/sync`, { method: 'POST', headers: { authorization: headers.authorization } })).status).toBe(200);
    await asked;
    const group = -server.child.pid!;
    return { server, group, closeFeed: () => feed.close().closeAllConnections() };
  }

  it('stops gracefully: the running job is waited for, PostgreSQL stops last, exit 0', async () => {
    const { server, group, closeFeed } = await startWithJobInFlight();
    process.kill(group, 'SIGINT');
    expect(await server.exited, server.log().slice(-3000)).toBe(0);
    closeFeed();
    const log = server.log();
    expect(log).toContain('"msg":"shutting down: finishing in-flight requests and jobs"');
    // The database outlived the stop: it was not cut by the terminal's signal under the running
    // job, and its supervisor did not take the stop for a crash.
    expect(log).not.toContain('exited unexpectedly');
    expect(log).not.toContain('terminating connection due to administrator command');
    await expectStoppedCleanly(dataDir, server.log);
  });

  it('a second Ctrl-C exits at once with 130, and PostgreSQL is stopped, not orphaned', async () => {
    const { server, group, closeFeed } = await startWithJobInFlight();
    process.kill(group, 'SIGINT');
    // The stop now waits for the job (up to 10 s): the second Ctrl-C comes while it does.
    await vi.waitFor(() => expect(server.log()).toContain('"msg":"shutting down: finishing in-flight requests and jobs"'), { timeout: PROCESS_LIMIT, interval: 5 });
    process.kill(group, 'SIGINT');
    expect(await server.exited, server.log().slice(-3000)).toBe(130);
    closeFeed();
    expect(server.log()).toContain('rampart: Ctrl-C again during the stop: exiting now');
    await vi.waitFor(() => expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid')), 'PostgreSQL is stopped').toBe(false), { timeout: PROCESS_LIMIT, interval: 100 });
  });
});
