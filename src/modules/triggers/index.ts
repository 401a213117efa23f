import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { registerIntakeRoutes } from './intake.routes.js';
import { createIntakeService } from './intake.service.js';
import { registerTriggersRoutes } from './triggers.routes.js';
import { createTriggersService, type TriggersService } from './triggers.service.js';
import type { IntakeTriggerCache } from './intake-cache.js';

export { runTriggerSchedulerPass } from './cron.js';
export { TriggerPut, type TriggerPutT } from './triggers.schemas.js';
export type { TriggerRow } from './triggers.repo.js';
export type { TriggersService } from './triggers.service.js';
export { triggersSubscriptions, triggerRunSubscriptions, createIntakeTriggerCache, type IntakeTriggerCache } from './intake-cache.js';

/**
 * `cache`: intake's trigger cache, created by the composition root (an agent's change drops it too: `triggersSubscriptions` on `agent.changed`).
 */
/** Returns its service: config apply writes triggers through its commands. */
export function registerTriggersModule(app: FastifyInstance, deps: ModuleDeps, opts: { cache: IntakeTriggerCache }): TriggersService {
  const { db } = deps.database;
  const { cache } = opts;
  app.addHook('onClose', async () => cache.close());
  const service = createTriggersService({ db, secrets: deps.secrets, baseUrl: deps.config.baseUrl, cache });
  registerTriggersRoutes(app, service);
  registerIntakeRoutes(app, createIntakeService({ db, secrets: deps.secrets, authenticator: deps.authenticator, cache, events: deps.events }), {
    bodyLimit: deps.config.bodyLimitBytes,
  });
  return service;
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['agent_triggers', 'trigger_deliveries'] as const;
