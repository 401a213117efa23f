import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { registerIntakeRoutes } from './intake.routes.js';
import { createIntakeService } from './intake.service.js';
import { registerTriggersRoutes } from './triggers.routes.js';
import { createTriggersService } from './triggers.service.js';
import type { IntakeTriggerCache } from './intake-cache.js';

export { runTriggerSchedulerPass } from './cron.js';
export { triggerSettingsSql } from './triggers.repo.js';
export { triggersSubscriptions, triggerRunSubscriptions, createIntakeTriggerCache, type IntakeTriggerCache } from './intake-cache.js';

/**
 * `cache`: intake's trigger cache, created by the composition root (an agent's change drops it too: `triggersSubscriptions` on `agent.changed`).
 */
export function registerTriggersModule(app: FastifyInstance, deps: ModuleDeps, opts: { cache: IntakeTriggerCache }): void {
  const { db } = deps.database;
  const { cache } = opts;
  app.addHook('onClose', async () => cache.close());
  registerTriggersRoutes(app, createTriggersService({ db, secrets: deps.secrets, baseUrl: deps.config.baseUrl, cache }));
  registerIntakeRoutes(app, createIntakeService({ db, secrets: deps.secrets, authenticator: deps.authenticator, cache, events: deps.events }), {
    bodyLimit: deps.config.bodyLimitBytes,
  });
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['agent_triggers', 'trigger_deliveries'] as const;
