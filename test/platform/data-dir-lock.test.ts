import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockToken, releaseLock, tryAcquireLock } from '../../src/platform/db/embedded.js';
import { until } from '../support/until.js';

/**
 * Issue 41 item 12, as it happens: `kill -9` where nothing reaps the process leaves a zombie
 * whose pid `kill(pid, 0)` still finds; after a reboot the pid in the lock belongs to another
 * program. Neither may keep the data directory locked; a live Rampart holder still does.
 */
const linux = fs.existsSync('/proc/self/stat');
let dir: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-lock-'));
});
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

const lockFile = () => path.join(dir, 'rampart.lock');
const stateOf = (pid: number) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0];

/** A shell that starts a short child, then becomes `sleep` (which never waits for it): the child dies unreaped, a zombie. */
async function zombie(): Promise<number> {
  const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(parent);
  const pid = await new Promise<number>((resolve) => parent.stdout!.once('data', (b: Buffer) => resolve(Number.parseInt(b.toString(), 10))));
  await until('the short child to become a zombie', () => stateOf(pid) === 'Z', { everyMs: 20 });
  return pid;
}

describe.runIf(linux)('the data-directory lock', () => {
  it('a zombie holder (killed, never reaped) does not keep the lock', async () => {
    const pid = await zombie();
    expect(() => process.kill(pid, 0)).not.toThrow(); // the old check called it alive
    fs.writeFileSync(lockFile(), `${pid} ${lockToken(pid)}`);
    expect(tryAcquireLock(dir)).toBeNull();
    expect(fs.readFileSync(lockFile(), 'utf8').split(' ')[0]).toBe(String(process.pid));
    releaseLock(dir);
    expect(fs.existsSync(lockFile())).toBe(false);
  });

  it('a live pid that is another program now (after a reboot) does not keep the lock: its start time differs', async () => {
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(other);
    await new Promise((r) => other.once('spawn', r));
    // The lock written by a Rampart that ran before the reboot: the same pid, another start.
    fs.writeFileSync(lockFile(), `${other.pid} 12345`);
    expect(tryAcquireLock(dir)).toBeNull();
    releaseLock(dir);
    // A lock from before start tokens (pid only) naming a program that is not Rampart.
    fs.writeFileSync(lockFile(), String(other.pid));
    expect(tryAcquireLock(dir)).toBeNull();
    releaseLock(dir);
  });

  it('an exit through process.exit (a failed start, a second Ctrl-C) releases it: stop() never ran', async () => {
    const code = `import('./src/platform/db/embedded.ts').then((m) => process.exit(m.tryAcquireLock(${JSON.stringify(dir)}) === null ? 1 : 3))`;
    const exiting = spawn(process.execPath, ['--import', 'tsx', '-e', code], { cwd: path.resolve(import.meta.dirname, '../..'), stdio: 'inherit' });
    children.push(exiting);
    expect(await new Promise((resolve) => exiting.once('exit', resolve))).toBe(1);
    expect(fs.existsSync(lockFile())).toBe(false);
  });

  it('a live Rampart holder keeps it: the lock names its pid and start time', async () => {
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    children.push(holder);
    await new Promise((r) => holder.once('spawn', r));
    fs.writeFileSync(lockFile(), `${holder.pid} ${lockToken(holder.pid!)}`);
    expect(tryAcquireLock(dir)).toBe(holder.pid);
    fs.writeFileSync(lockFile(), String(holder.pid)); // an older lock (pid only) of a node process
    expect(tryAcquireLock(dir)).toBe(holder.pid);
    fs.rmSync(lockFile());
  });
});
