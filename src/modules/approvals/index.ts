import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule, type ModuleServices } from '../../platform/module.js';
import { registerApprovalsRoutes } from './approvals.routes.js';
import { createApprovalsService, type ApprovalsService } from './approvals.service.js';
import { expireApprovals } from './approvals.expiry.js';
import { createGuardedClient } from '../../platform/outbound/index.js';
import { createSlackInteractions } from './slack-interactions.js';
import { registerSlackInteractionRoutes } from './slack-interactions.routes.js';
import { migrations } from './migrations/index.js';

export { requestApprovals, settleDecidedCalls, closeRunApprovals, pendingCountOfRun, type ApprovalNeeded, type RunOfRequest, type SettledCall } from './approvals.request.js';
export type { ApprovalEvent } from './approvals.events.js';
export { approvalConsoleUrl } from './approvals.fns.js';

function registerApprovalsModule(app: FastifyInstance, deps: ModuleDeps, services: ModuleServices<ApprovalsService>): void {
  const service = services.own;
  registerApprovalsRoutes(app, service);
  // Slack's clicks answer from the API process: its own outbound client (users.info, response_url), under the same address policy.
  const http = createGuardedClient({ allowPrivateNetworks: deps.config.allowPrivateNetworks, retries: 0 });
  app.addHook('onClose', async () => {
    await http.close();
  });
  registerSlackInteractionRoutes(app, createSlackInteractions({ db: deps.database.db, secrets: deps.secrets, http, approvals: service, signingSecret: deps.config.slackSigningSecret }));
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['tool_approvals'] as const;

/**
 * Approvals (docs/approvals.md): the requests a run's tool calls make when their policy is
 * `approve`, decided from the console, the API or Slack, expired by the scheduler. Below runs:
 * the run job records and settles requests through this front door; a decision reaches the
 * run as `approval.decided` (runs subscribe and resume it).
 */
export const approvalsModule = defineModule({
  name: 'approvals',
  owns: ownedTables,
  migrations,
  services: ({ db, events, baseUrl }) => createApprovalsService({ db, events, baseUrl }),
  routes: registerApprovalsModule,
  schedulerPasses: [
    {
      name: 'approval expiry',
      run: async ({ db, events, logger }) => {
        const n = await expireApprovals(db, events);
        if (n > 0) logger.info({ approvals: n }, 'approval requests expired (denied with reason expired)');
      },
    },
  ],
});
