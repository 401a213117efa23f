import type { Logger } from 'pino';
import type { Database } from './platform/db/database.js';
import { scheduleDueSyncs } from './modules/intel/index.js';
import { refreshAllObjects } from './modules/intel-out/index.js';
import { runTriggerSchedulerPass } from './modules/triggers/index.js';
import { runHuntIntelPass } from './modules/hunt/index.js';
import { sweepAbandonedRuns } from './modules/runs/index.js';
import { serviceEvents } from './events.js';

/**
 * The worker role's clock: each tick (every 30 s by default) runs every module's scheduler
 * pass — intel source syncs on their `scheduleCron`, agent cron triggers, trigger
 * housekeeping, the refresh of the STIX objects intel-out serves, the hunt's pass that turns CVEs in new intel into threats, and the sweep that ends runs no job will finish. One timer, one stop(); each pass is safe to run from several processes.
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

  const timer = setInterval(() => {
    running ??= Promise.all([
      scheduleDueSyncs(db).catch((err) => logger.warn({ err }, 'source scheduler tick failed')),
      // TAXII/MISP-feed objects of new or changed indicators, so a pull rarely waits for a backlog.
      refreshAllObjects(db).catch((err) => logger.warn({ err }, 'intel-out refresh failed')),
      runTriggerSchedulerPass(db, new Date(), { events }).catch((err) => logger.warn({ err }, 'trigger scheduler tick failed')),
      // Threats from intel: CVEs named by newly processed items (intel never calls hunt).
      runHuntIntelPass(db, events).catch((err) => logger.warn({ err }, 'hunt intel pass failed')),
      sweepAbandonedRuns(db, { graceMs: runGraceMs, events })
        .then((n) => n > 0 && logger.warn({ runs: n }, 'ended runs that no job will finish (their job failed for good, or they outlived their time limit)'))
        .catch((err) => logger.warn({ err }, 'run sweep failed')),
    ])
      .then(() => undefined)
      .finally(() => (running = null));
  }, deps.intervalMs ?? 30_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
