import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule, type ModuleServices, type ServiceDeps } from '../../platform/module.js';
import { createInvalidationBus } from '../../platform/cache/invalidation-bus.js';
import { registerIntakeRoutes } from './intake.routes.js';
import { createIntakeService, type IntakeService } from './intake.service.js';
import { registerTriggersRoutes } from './triggers.routes.js';
import { createTriggersService, type TriggersService } from './triggers.service.js';
import { createIntakeTriggerCache, type IntakeTriggerCache } from './intake-cache.js';
import { triggersSubscriptions } from './triggers.subscriptions.js';
import { runTriggerSchedulerPass } from './cron.js';
import { createIntakeGroup } from './intake-group.js';
import type { TriggerAlertGroup } from '../../flows/trigger-firing.flow.js';
import { triggerSettingsSql } from './triggers.repo.js';
import { migrations } from './migrations/index.js';

export { TriggerPut, type TriggerPutT } from './triggers.schemas.js';
export type { TriggerRow } from './triggers.repo.js';
export type { TriggersService } from './triggers.service.js';
export type { IntakeRequest } from './intake.service.js';

/**
 * The API role's state: intake's trigger cache (an agent's change drops it too:
 * `triggersSubscriptions` on `agent.changed`), the group commit of intake's alerts, and the
 * authenticator intake checks API-key callers with.
 */
interface IntakeState {
  cache: IntakeTriggerCache;
  group: TriggerAlertGroup;
  authenticator: ModuleDeps['authenticator'];
}

/**
 * The service config apply writes triggers through, and intake's: its routes, and other intakes
 * (the detect module's `events` triggers) authenticating their senders as every trigger does.
 */
export type TriggersServices = TriggersService & { intake: IntakeService; authorizeIntake: IntakeService['authorize'] };

function triggersServices({ db, secrets, baseUrl, events }: Pick<ServiceDeps, 'db' | 'secrets' | 'baseUrl' | 'events'>, state: IntakeState | undefined): TriggersServices {
  if (!state) throw new Error("triggers' commands are built over the API role's intake cache; this role has none");
  const { cache, group, authenticator } = state;
  const intake = createIntakeService({ db, secrets, authenticator, cache, group, events });
  return Object.assign(createTriggersService({ db, secrets, baseUrl, cache }), { intake, authorizeIntake: intake.authorize });
}

function registerTriggersModule(app: FastifyInstance, deps: ModuleDeps, services: ModuleServices<TriggersServices>, { cache }: IntakeState): void {
  app.addHook('onClose', async () => cache.close());
  registerTriggersRoutes(app, services.own);
  registerIntakeRoutes(app, services.own.intake, { bodyLimit: deps.config.bodyLimitBytes });
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
  migrations,
  state: (deps): IntakeState => ({
    cache: createIntakeTriggerCache(deps.invalidation ?? createInvalidationBus()),
    group: createIntakeGroup(deps.database.db, deps.config.intakeGroupWaitMs, deps.logger, deps.metrics),
    authenticator: deps.authenticator,
  }),
  services: (deps, _needed, state) => triggersServices(deps, state),
  routes: registerTriggersModule,
  schedulerPasses: [{ name: 'trigger scheduler tick', run: ({ db, events }) => runTriggerSchedulerPass(db, new Date(), { events }) }],
  subscribes: (state) => triggersSubscriptions(state?.cache),
  // What each agent version records of its triggers (agents ask: agent-versions.repo.ts).
  readers: { agentTriggerSettings: triggerSettingsSql },
});
