import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { registerAgentsRoutes } from './agents.routes.js';
import { createAgentsService, type AgentsService } from './agents.service.js';

// The front door: what other modules (runs) may use of an agent.
export { findAgentRow, type AgentRow } from './agents.repo.js';
export { agentSnapshotSql, type PinnedAgent } from './agents.repo.js';
export { agentMaxDurationOf, agentNameOf, agentNames, organizationAgents } from './agents.readers.js';
export { AgentIdParams, agentFields, type AgentInputSpecT, type AgentDto } from './agents.schemas.js';
export type { AgentsService } from './agents.service.js';
export { structuredOutputSchema } from './output-schema.fns.js';
export { inputProblems } from './inputs.fns.js';

/** An agent's update or deletion emits `agent.changed` in its transaction (see agents.service.ts). */
/** Returns its service: config apply writes agents through its commands. */
export function registerAgentsModule(app: FastifyInstance, deps: ModuleDeps): AgentsService {
  const service = createAgentsService({ db: deps.database.db, events: deps.events });
  registerAgentsRoutes(app, service);
  return service;
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['agents'] as const;
