import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule } from '../../platform/module.js';
import { registerAgentsRoutes } from './agents.routes.js';
import { createAgentsService } from './agents.service.js';

// The front door: what other modules (runs) may use of an agent.
export { findAgentRow, type AgentRow } from './agents.repo.js';
export { agentSnapshotSql, type PinnedAgent } from './agents.repo.js';
export { agentMaxDurationOf, agentNameOf, agentNames, organizationAgents } from './agents.readers.js';
export { AgentIdParams, type AgentInputSpecT } from './agents.schemas.js';
export { structuredOutputSchema } from './output-schema.fns.js';
export { inputProblems } from './inputs.fns.js';

/** An agent's update or deletion emits `agent.changed` in its transaction (see agents.service.ts). */
function registerAgentsModule(app: FastifyInstance, deps: ModuleDeps): void {
  registerAgentsRoutes(app, createAgentsService({ db: deps.database.db, events: deps.events }), Object.keys(deps.tools));
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['agents'] as const;

export const agentsModule = defineModule({ name: 'agents', owns: ownedTables, routes: registerAgentsModule });
