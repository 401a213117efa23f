import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule, type ModuleServices, type ServiceDeps } from '../../platform/module.js';
import { registerAgentsRoutes } from './agents.routes.js';
import { createAgentsService, type AgentsService } from './agents.service.js';
import { registerAgentVersionsRoutes } from './agent-versions.routes.js';
import { createAgentVersionsService } from './agent-versions.service.js';
import type { TriggerSettingsSql } from './agent-versions.repo.js';
import { migrations } from './migrations/index.js';

// The front door: what other modules (runs) may use of an agent.
export { findAgentRow, type AgentRow } from './agents.repo.js';
export { agentSnapshotSql, type PinnedAgent } from './agents.repo.js';
export { agentMaxConcurrentRunsOf, agentMaxDurationOf, agentNameOf, agentNames, agentVersionOf, organizationAgents } from './agents.readers.js';
export { AgentIdParams, agentFields, DEFAULT_APPROVAL_SETTINGS, type AgentInputSpecT, type AgentDto, type ApprovalSettingsT } from './agents.schemas.js';
export type { AgentsService, AgentWriteOptions } from './agents.service.js';
export { structuredOutputSchema } from './output-schema.fns.js';
export { inputProblems } from './inputs.fns.js';
// Versions: the agent as it was at a version (runs, evaluations), and the command a trigger change appends one with.
export { completeSnapshot } from './agent-versions.fns.js';
export { VersionParams } from './agent-versions.schemas.js';
export { agentVersionSnapshot, appendAgentVersion, originOf, type AgentVersionSnapshot, type TriggerSettingsSql, type VersionOrigin } from './agent-versions.repo.js';

/**
 * An agent's update or deletion emits `agent.changed` in its transaction (see agents.service.ts);
 * each change appends a version. The service: config apply writes agents through it.
 */
function agentsServices(deps: Pick<ServiceDeps, 'db' | 'events' | 'readers'>): AgentsService {
  const triggerSettings = deps.readers.agentTriggerSettings;
  return createAgentsService({ db: deps.db, events: deps.events, ...(triggerSettings ? { triggerSettings } : {}) });
}

function registerAgentsModule(app: FastifyInstance, deps: ModuleDeps, services: ModuleServices<AgentsService>): void {
  const agents = services.own;
  registerAgentsRoutes(app, agents, Object.keys(deps.tools));
  registerAgentVersionsRoutes(app, createAgentVersionsService({ db: deps.database.db, agents }));
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['agents', 'agent_versions'] as const;

export const agentsModule = defineModule({ name: 'agents', owns: ownedTables, migrations, services: agentsServices, routes: registerAgentsModule });
