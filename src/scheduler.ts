import type { Logger } from 'pino';
import type { Database } from './platform/db/database.js';
import { scheduleDueSyncs } from './modules/intel/index.js';
import { refreshAllObjects } from './modules/intel-out/index.js';
import { runTriggerSchedulerPass } from './modules/triggers/index.js';
import { createHuntAlertPort, runHuntIntelPass } from './modules/hunt/index.js';
import { recordOutboundEvent } from './modules/delivery/index.js';

/**
 * The worker role's clock: each tick (every 30 s by default) runs every module's scheduler
 * pass — intel source syncs on their `scheduleCron`, agent cron triggers, trigger
 * housekeeping, the refresh of the STIX objects intel-out serves, and the hunt's pass that turns CVEs in new intel into threats. One timer, one stop(); each pass is safe to run from several processes.
 */
export function startScheduler(deps: { db: Database; logger: Logger; intervalMs?: number }): { stop(): Promise<void> } {
  const { db, logger } = deps;
  let running: Promise<void> | null = null;

  const timer = setInterval(() => {
    running ??= Promise.all([
      scheduleDueSyncs(db).catch((err) => logger.warn({ err }, 'source scheduler tick failed')),
      // TAXII/MISP-feed objects of new or changed indicators, so a pull rarely waits for a backlog.
      refreshAllObjects(db).catch((err) => logger.warn({ err }, 'intel-out refresh failed')),
      runTriggerSchedulerPass(db, new Date(), { events: recordOutboundEvent }).catch((err) => logger.warn({ err }, 'trigger scheduler tick failed')),
      // Threats from intel: CVEs named by newly processed items (intel never calls hunt).
      runHuntIntelPass(db, createHuntAlertPort({ events: recordOutboundEvent })).catch((err) => logger.warn({ err }, 'hunt intel pass failed')),
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
