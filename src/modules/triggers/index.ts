import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { discardEvents, type EventSink } from '../../platform/events.js';
import { registerIntakeRoutes } from './intake.routes.js';
import { createIntakeService } from './intake.service.js';
import { registerTriggersRoutes } from './triggers.routes.js';
import { createTriggersService } from './triggers.service.js';
import type { IntakeTriggerCache } from './intake-cache.js';

export { runTriggerSchedulerPass } from './cron.js';
export { agentChangedInvalidator, createIntakeTriggerCache, type IntakeTriggerCache } from './intake-cache.js';

/**
 * `events`: where trigger-created alerts' events go (delivery's sink, injected by the composition root).
 * `cache`: intake's trigger cache, created by the composition root (the agents module invalidates it too).
 */
export function registerTriggersModule(app: FastifyInstance, deps: ModuleDeps, opts: { events?: EventSink; cache: IntakeTriggerCache }): void {
  const { db } = deps.database;
  const { cache } = opts;
  app.addHook('onClose', async () => cache.close());
  registerTriggersRoutes(app, createTriggersService({ db, secrets: deps.secrets, baseUrl: deps.config.baseUrl, cache }));
  registerIntakeRoutes(app, createIntakeService({ db, secrets: deps.secrets, authenticator: deps.authenticator, cache, events: opts.events ?? discardEvents }), {
    bodyLimit: deps.config.bodyLimitBytes,
  });
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['agent_triggers', 'trigger_deliveries'] as const;
