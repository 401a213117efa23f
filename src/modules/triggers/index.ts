import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule, type ModuleServices, type ServiceDeps } from '../../platform/module.js';
import { createInvalidationBus } from '../../platform/cache/invalidation-bus.js';
import { registerIntakeRoutes } from './intake.routes.js';
import { createIntakeService } from './intake.service.js';
import { registerTriggersRoutes } from './triggers.routes.js';
import { createTriggersService, type TriggersService } from './triggers.service.js';
import { createIntakeTriggerCache, triggerRunSubscriptions, triggersSubscriptions, type IntakeTriggerCache } from './intake-cache.js';
import { runTriggerSchedulerPass } from './cron.js';
import { createIntakeGroup } from './intake-group.js';
import { triggerSettingsSql } from './triggers.repo.js';

export { TriggerPut, type TriggerPutT } from './triggers.schemas.js';
export type { TriggerRow } from './triggers.repo.js';
export type { TriggersService } from './triggers.service.js';

/**
 * `cache`: intake's trigger cache, this module's API-role state (an agent's change drops it too:
 * `triggersSubscriptions` on `agent.changed`). The service: config apply writes triggers through it.
 */
function triggersServices({ db, secrets, baseUrl }: Pick<ServiceDeps, 'db' | 'secrets' | 'baseUrl'>, cache: IntakeTriggerCache | undefined): TriggersService {
  if (!cache) throw new Error("triggers' commands are built over the API role's intake cache; this role has none");
  return createTriggersService({ db, secrets, baseUrl, cache });
}

function registerTriggersModule(app: FastifyInstance, deps: ModuleDeps, services: ModuleServices<TriggersService>, cache: IntakeTriggerCache): void {
  const { db } = deps.database;
  app.addHook('onClose', async () => cache.close());
  registerTriggersRoutes(app, services.own);
  const group = createIntakeGroup(db, deps.config.intakeGroupWaitMs, deps.logger, deps.metrics);
  registerIntakeRoutes(app, createIntakeService({ db, secrets: deps.secrets, authenticator: deps.authenticator, cache, group, events: deps.events }), {
    bodyLimit: deps.config.bodyLimitBytes,
  });
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
  services: (deps, _needed, cache) => triggersServices(deps, cache),
  routes: registerTriggersModule,
  schedulerPasses: [{ name: 'trigger scheduler tick', run: ({ db, events }) => runTriggerSchedulerPass(db, new Date(), { events }) }],
  subscribes: (cache) => ({ ...triggerRunSubscriptions, ...(cache ? triggersSubscriptions(cache) : {}) }),
  // What each agent version records of its triggers (agents ask: agent-versions.repo.ts).
  readers: { agentTriggerSettings: triggerSettingsSql },
});
