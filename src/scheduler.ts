import type { Logger } from 'pino';
import type { Database } from './platform/db/database.js';
import { SCHEDULER_PASSES, serviceEvents } from './composition.js';

/**
 * The worker role's clock: each tick (every 30 s by default) runs every module's scheduler
 * passes (their manifests' `schedulerPasses`: intel source syncs on their `scheduleCron`,
 * intel-out's refresh of the STIX objects it serves, agent cron triggers and trigger
 * housekeeping, the hunt's pass that turns CVEs in new intel into threats, the sweep that ends
 * runs no job will finish), side by side. One timer, one stop(); each pass is safe to run from
 * several processes, and one that fails is logged and tried again next tick.
 *
 * `deadWorkerAfterMs`: the workers' dead-worker delay; a stuck run is given that (and more)
 * for its retry before the run sweep ends it.
 */
export function startScheduler(deps: { db: Database; logger: Logger; intervalMs?: number; deadWorkerAfterMs?: number }): { stop(): Promise<void> } {
  const { db, logger } = deps;
  // Built once: every pass's changes emit their events here (cron alerts, hunt alerts, ended runs).
  const events = serviceEvents();
  const runGraceMs = Math.round(1.5 * (deps.deadWorkerAfterMs ?? 60_000)) + 30_000;
  let running: Promise<void> | null = null;
  // Once stopping, a pass that fails (the shutdown closing what it uses) is named in stop()'s one
  // line rather than logging its own warning: a stop logged a burst of them.
  let stopping = false;
  const failedWhileStopping: string[] = [];

  const tick = () => {
    running ??= Promise.all(
      SCHEDULER_PASSES.map((pass) =>
        pass.run({ db, logger, events, runGraceMs }).catch((err: unknown) => {
          if (stopping) failedWhileStopping.push(pass.name);
          else logger.warn({ err }, `${pass.name} failed`);
        }),
      ),
    )
      .then(() => undefined)
      .finally(() => (running = null));
  };
  const timer = setInterval(tick, deps.intervalMs ?? 30_000);
  timer.unref();
  // A tick at start: a run that fell due while no worker was up (a restart) starts now, not a
  // whole interval later (when the next minute's run would already be due too, and merged into it).
  tick();
  return {
    async stop() {
      stopping = true;
      clearInterval(timer);
      const wasRunning = running !== null;
      await running;
      if (failedWhileStopping.length) logger.info({ interrupted: failedWhileStopping }, 'scheduler stopped; passes interrupted by the shutdown run again at the next start');
      else logger.info({ waitedForPasses: wasRunning }, 'scheduler stopped');
    },
  };
}
