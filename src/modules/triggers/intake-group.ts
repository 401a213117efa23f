import { Counter, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { Database } from '../../platform/db/database.js';
import { createTriggerAlertGroup, type TriggerAlertGroup } from '../../flows/trigger-firing.flow.js';

/**
 * Group commit of webhook intake's one-statement path (platform/db/group-commit.ts): a plain
 * delivery's alert, timeline, run and job are written with those of the deliveries arriving
 * within `waitMs` (RAMPART_INTAKE_GROUP_WAIT_MS), or while two earlier batches are being
 * written, by one statement with one graphile-worker `add_jobs` call; each delivery is answered
 * after its batch committed. The API process's group: its refusals logged, its counters on /metrics.
 */
export function createIntakeGroup(db: Database, waitMs: number, log: Logger, metrics: Registry): TriggerAlertGroup {
  const group = createTriggerAlertGroup(db, {
    maxWaitMs: waitMs,
    maxBatch: 64,
    maxInFlight: 2,
    onBatchRefused: (err, size) => log.warn({ err, size }, 'webhook intake: a grouped statement was refused; its deliveries are written one by one'),
  });
  const counter = (name: string, help: string, value: () => number) =>
    new Counter({
      name,
      help,
      registers: [metrics],
      collect() {
        this.reset();
        this.inc(value());
      },
    });
  counter('rampart_intake_grouped_statements_total', 'Statements that wrote grouped webhook deliveries (each one transaction; retries of refused batches excluded)', () => group.stats.batches);
  counter('rampart_intake_grouped_deliveries_total', 'Webhook deliveries written by grouped statements (÷ statements = mean batch size)', () => group.stats.items);
  counter('rampart_intake_grouped_refused_total', 'Grouped statements PostgreSQL refused, whose deliveries were then written one by one', () => group.stats.refused);
  return group;
}
