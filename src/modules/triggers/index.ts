import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule } from '../../platform/module.js';
import { createInvalidationBus } from '../../platform/cache/invalidation-bus.js';
import { registerIntakeRoutes } from './intake.routes.js';
import { createIntakeService, type IntakeService } from './intake.service.js';
import { registerTriggersRoutes } from './triggers.routes.js';
import { createTriggersService, type TriggersService } from './triggers.service.js';
import { createIntakeTriggerCache, triggerRunSubscriptions, triggersSubscriptions, type IntakeTriggerCache } from './intake-cache.js';
import { runTriggerSchedulerPass } from './cron.js';
import { createIntakeGroup } from './intake-group.js';
import { triggerSettingsSql } from './triggers.repo.js';

export { TriggerPut, type TriggerPutT } from './triggers.schemas.js';
export type { TriggerRow } from './triggers.repo.js';
export type { TriggersService } from './triggers.service.js';
export type { IntakeRequest } from './intake.service.js';

/**
 * `cache`: intake's trigger cache, this module's API-role state (an agent's change drops it too:
 * `triggersSubscriptions` on `agent.changed`). Returns the service: config apply writes triggers through it.
 */
function registerTriggersModule(app: FastifyInstance, deps: ModuleDeps, cache: IntakeTriggerCache): TriggersService & { authorizeIntake: IntakeService['authorize'] } {
  const { db } = deps.database;
  app.addHook('onClose', async () => cache.close());
  const service = createTriggersService({ db, secrets: deps.secrets, baseUrl: deps.config.baseUrl, cache });
  registerTriggersRoutes(app, service);
  const group = createIntakeGroup(db, deps.config.intakeGroupWaitMs, deps.logger, deps.metrics);
  const intake = createIntakeService({ db, secrets: deps.secrets, authenticator: deps.authenticator, cache, group, events: deps.events });
  registerIntakeRoutes(app, intake, { bodyLimit: deps.config.bodyLimitBytes });
  // Other intakes (the detect module's `events` triggers) authenticate their senders the same way.
  return Object.assign(service, { authorizeIntake: intake.authorize });
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['agent_triggers', 'trigger_deliveries'] as const;

/**
 * Triggers: their API, signed webhook intake over the intake cache (API-role state), cron
 * triggers (a scheduler pass) and the subscriptions: `agent.changed` drops the cache (API only),
 * `run.ended` of a trigger's run stamps the trigger (every role).
 */
export const triggersModule = defineModule({
  name: 'triggers',
  owns: ownedTables,
  state: (deps) => createIntakeTriggerCache(deps.invalidation ?? createInvalidationBus()),
  routes: registerTriggersModule,
  schedulerPasses: [{ name: 'trigger scheduler tick', run: ({ db, events }) => runTriggerSchedulerPass(db, new Date(), { events }) }],
  subscribes: (cache) => ({ ...triggerRunSubscriptions, ...(cache ? triggersSubscriptions(cache) : {}) }),
  // What each agent version records of its triggers (agents ask: agent-versions.repo.ts).
  readers: { agentTriggerSettings: triggerSettingsSql },
});
