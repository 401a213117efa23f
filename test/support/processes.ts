import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import net from 'node:net';
import { until, type Truthy } from './until.js';

/**
 * What every test that runs a real process needs: a free port for it, and the process with its
 * output kept (stdout and stderr together, in order of arrival) for the failure message.
 */

/** A TCP port free on 127.0.0.1 now (the OS picks it; a process started next can listen on it). */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export interface LoggedChild {
  child: ChildProcess;
  /** Everything the process wrote so far. */
  log: () => string;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

/**
 * Spawns `command` with its output captured; the child is added to `children` (if given) so the
 * test's afterAll can kill what a failed test left running (`killAll`).
 */
export function spawnLogged(command: string, args: string[], options: Omit<SpawnOptions, 'stdio'>, children?: Set<ChildProcess>): LoggedChild {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  children?.add(child);
  let text = '';
  child.stdout!.on('data', (d) => (text += d));
  child.stderr!.on('data', (d) => (text += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, log: () => text, exited };
}

/** SIGKILL to every child still running: a test's afterAll, after a failure left one behind. */
export function killAll(children: Set<ChildProcess>): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/**
 * Waits until `match` finds something in the child's output, and returns it (a line it printed,
 * an id in it). The child exiting first ends the wait at once, failing with its output: a child
 * that crashed at start-up must not look like a slow one.
 */
export async function untilOutput<T>(c: LoggedChild, what: string, match: (output: string) => T): Promise<Truthy<T>> {
  const exited = Symbol('exited');
  const found = await until(what, () => (c.child.exitCode !== null || c.child.signalCode !== null ? exited : match(c.log())));
  if (found === exited) throw new Error(`the child exited (code ${c.child.exitCode}, signal ${c.child.signalCode}) before ${what}:\n${c.log()}`);
  return found as Truthy<T>;
}

/** SIGKILL, resolved once the child is gone: a crash at a chosen moment. */
export async function killNow(c: LoggedChild): Promise<void> {
  c.child.kill('SIGKILL');
  await c.exited;
}
