import type { ChildProcess } from 'node:child_process';

/**
 * Polls `<origin>/readyz` until it answers 200: the wait of every test that starts a real
 * `rampart` process (or `npm start`). Throws, with the end of the process's log, when the process
 * exits first or `timeoutMs` passes; the error names which.
 */
export async function waitForReadyz(
  origin: string,
  opts: { child?: ChildProcess; log?: () => string; timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const { child, log = () => '', timeoutMs = 90_000, intervalMs = 100 } = opts;
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) before /readyz answered 200:\n${log().slice(-3000)}`);
    }
    try {
      const res = await fetch(`${origin}/readyz`);
      if (res.status === 200) return;
      last = `${res.status} ${await res.text()}`;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`/readyz did not answer 200 within ${timeoutMs} ms (last: ${last}):\n${log().slice(-3000)}`);
}
