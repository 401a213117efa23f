import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/db.js';
import { waitForReadyz } from '../support/readyz.js';

/**
 * `npm start` (scripts/start.js): its staleness checks rebuild what changed and nothing else,
 * then run `rampart start` in the same process (issue 50 item 4). In a copy of the checkout, so
 * the worktree's own dist/ is left alone. The console's build (Vite) is not run here: its check
 * is exercised directly, with a fingerprint of the copy's console sources standing for a build.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-start-'));
const FALLBACK = 'rampart: running the TypeScript sources through tsx';
let database: Awaited<ReturnType<typeof createTestDatabase>>;
type ConsoleFingerprint = typeof import('../../scripts/console-fingerprint.js');
let consoleCheck: ConsoleFingerprint;

function node(args: string[]) {
  return spawnSync(process.execPath, args, { cwd: copy, env: { PATH: process.env.PATH ?? '', HOME: os.homedir() }, encoding: 'utf8', timeout: 180_000 });
}

beforeAll(async () => {
  for (const entry of ['package.json', 'package-lock.json', 'bin', 'scripts', 'src', 'bench/servers', 'web']) fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  // The copy's own module: its ROOT is the copy.
  consoleCheck = (await import(pathToFileURL(path.join(copy, 'scripts/console-fingerprint.js')).href)) as ConsoleFingerprint;
  fs.mkdirSync(path.join(copy, 'dist/web'), { recursive: true });
  fs.writeFileSync(consoleCheck.FINGERPRINT, consoleCheck.sourceFingerprint());
  database = await createTestDatabase();
}, 60_000);

afterAll(async () => {
  await database?.close();
  fs.rmSync(copy, { recursive: true, force: true });
});

describe('npm start: build only what is stale, then start in one process', () => {
  it("the console's check: a stat per file when nothing changed, the contents after a touch, stale after an edit", () => {
    const metadataStamp = path.join(copy, 'dist/web/.fingerprint-metadata');
    expect(fs.existsSync(metadataStamp)).toBe(false);
    // Just built: the contents are hashed once and the metadata stamp recorded.
    expect(consoleCheck.isConsoleFresh()).toBe(true);
    const recorded = fs.readFileSync(metadataStamp, 'utf8');
    expect(recorded).toContain(consoleCheck.sourceMetadataStamp());
    expect(consoleCheck.isConsoleFresh()).toBe(true);
    // A touched file (a checkout, an unpacked tarball): still fresh by content, and the stamp follows.
    const app = fs.readdirSync(path.join(copy, 'web/src')).find((f) => f.endsWith('.tsx'))!;
    const file = path.join(copy, 'web/src', app);
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(file, later, later);
    expect(consoleCheck.isConsoleFresh()).toBe(true);
    expect(fs.readFileSync(metadataStamp, 'utf8')).not.toBe(recorded);
    // An edit: stale, and it stays stale until a build writes a new fingerprint.
    fs.appendFileSync(file, '\n// edited\n');
    expect(consoleCheck.isConsoleFresh()).toBe(false);
    expect(consoleCheck.isConsoleFresh()).toBe(false);
    fs.writeFileSync(consoleCheck.FINGERPRINT, consoleCheck.sourceFingerprint());
    expect(consoleCheck.isConsoleFresh()).toBe(true);
  });

  it('builds the server when there is none, not again when nothing changed, again after an edit', () => {
    const first = node(['scripts/build-if-stale.js']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain('server built in dist/server');
    const stamp = path.join(copy, 'dist/server/.stamp');
    const builtAt = fs.statSync(stamp).mtimeMs;

    const again = node(['scripts/build-if-stale.js']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toBe('');
    expect(fs.statSync(stamp).mtimeMs).toBe(builtAt);

    const args = path.join(copy, 'src/cli/args.ts');
    fs.writeFileSync(args, fs.readFileSync(args, 'utf8').replace('Usage: rampart <command>', 'Usage: rampart <command> (edited)'));
    expect(node(['bin/rampart.js', 'help']).stderr).toContain(FALLBACK);
    const rebuilt = node(['scripts/build-if-stale.js']);
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toContain('server built in dist/server');
    const help = node(['bin/rampart.js', 'help']);
    expect(help.stderr).not.toContain(FALLBACK);
    expect(help.stdout).toContain('(edited)');
  }, 240_000);

  it('`node scripts/start.js` (npm start) runs the fresh build as `rampart start` and answers /readyz', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const server = spawn(process.execPath, ['scripts/start.js'], {
      cwd: copy,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: os.homedir(),
        DATABASE_URL: database.url,
        RAMPART_SECRET_KEY: randomBytes(32).toString('base64url'),
        RAMPART_DATA_DIR: path.join(copy, '.rampart'),
        PORT: String(port),
        HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    server.stdout!.on('data', (d) => (log += d));
    server.stderr!.on('data', (d) => (log += d));
    try {
      await waitForReadyz(`http://127.0.0.1:${port}`, { child: server, log: () => log, timeoutMs: 90_000 });
      // Nothing was stale (the previous test built): no build, no tsx, and the role is `start` (API + workers).
      expect(log).not.toContain('server built');
      expect(log).not.toContain(FALLBACK);
      await expect.poll(() => log, { timeout: 30_000 }).toMatch(/"role":"start".*"msg":"rampart ready"/);
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => (server.exitCode === null ? server.once('exit', r) : r(null)));
    }
  }, 120_000);
});
