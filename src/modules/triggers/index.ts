import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { discardEvents, type EventSink } from '../../platform/events.js';
import { registerIntakeRoutes } from './intake.routes.js';
import { createIntakeService } from './intake.service.js';
import { registerTriggersRoutes } from './triggers.routes.js';
import { createTriggersService } from './triggers.service.js';

export { runTriggerSchedulerPass } from './cron.js';

/** `events`: where trigger-created alerts' events go (delivery's sink, injected by the composition root). */
export function registerTriggersModule(app: FastifyInstance, deps: ModuleDeps, opts: { events?: EventSink } = {}): void {
  const { db } = deps.database;
  registerTriggersRoutes(app, createTriggersService({ db, secrets: deps.secrets, baseUrl: deps.config.baseUrl }));
  registerIntakeRoutes(app, createIntakeService({ db, secrets: deps.secrets, authenticator: deps.authenticator, events: opts.events ?? discardEvents }), {
    bodyLimit: deps.config.bodyLimitBytes,
  });
}
