import fs from 'node:fs';
import { Session } from 'node:inspector/promises';

/**
 * What a bench server child says to the parent over IPC, and how it answers. The parent asks
 * for memory figures and for a clean stop (so `--cpu-prof` can write its profile); a child
 * whose parent went away stops on its own, so an aborted bench never leaves servers behind.
 */
export type ToChild = { type: 'memory' } | { type: 'stop' } | { type: 'profile-start' } | { type: 'profile-stop'; file: string };
export type FromChild =
  | { type: 'listening'; port: number; startupMs: number }
  | { type: 'profile-started' }
  | { type: 'profile-saved'; file: string }
  | { type: 'memory'; rss: number; heapUsed: number; heapTotal: number; external: number }
  | { type: 'fatal'; message: string };

export function send(msg: FromChild): void {
  process.send?.(msg);
}

export function serveIpc(stop: () => Promise<void>): void {
  if (!process.send) throw new Error('bench servers run as children of bench/run.ts (no IPC channel)');
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(1), 5_000);
    force.unref();
    await stop().catch(() => {});
    process.exit(0);
  };
  process.on('message', (msg: ToChild) => {
    if (msg.type === 'memory') {
      const m = process.memoryUsage();
      send({ type: 'memory', rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external });
    } else if (msg.type === 'stop') {
      void shutdown();
    } else if (msg.type === 'profile-start') {
      void startProfile().then(() => send({ type: 'profile-started' }), fatal);
    } else if (msg.type === 'profile-stop') {
      void stopProfile(msg.file).then(() => send({ type: 'profile-saved', file: msg.file }), fatal);
    }
  });
  process.on('disconnect', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

export function fatal(err: unknown): never {
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`${message}\n`);
  send({ type: 'fatal', message });
  process.exit(1);
}

/**
 * CPU profile of this (main) thread over exactly the window the parent asks for, so startup
 * and tsx's loader thread stay out of it. 1 ms sampling (finer sampling costs too much throughput on these VMs).
 */
let session: Session | null = null;

export async function startProfile(): Promise<void> {
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 1000 });
  await session.post('Profiler.start');
}

export async function stopProfile(file: string): Promise<void> {
  if (!session) throw new Error('profile-stop without profile-start');
  const { profile } = await session.post('Profiler.stop');
  fs.writeFileSync(file, JSON.stringify(profile));
  session.disconnect();
  session = null;
}
