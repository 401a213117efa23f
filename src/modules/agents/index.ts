import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import type { Queryable } from '../../platform/db/database.js';
import { registerAgentsRoutes } from './agents.routes.js';
import { createAgentsService } from './agents.service.js';

// The front door: what other modules (runs) may use of an agent.
export { findAgentRow, type AgentRow } from './agents.repo.js';
export { agentMaxDurationOf, agentNameOf, agentNames, organizationAgents } from './agents.readers.js';
export { AgentIdParams, type AgentInputSpecT } from './agents.schemas.js';
export { structuredOutputSchema } from './output-schema.fns.js';
export { inputProblems } from './inputs.fns.js';

/** `onAgentChanged`: runs inside an agent's update or deletion (the composition root wires triggers' intake cache). */
export function registerAgentsModule(app: FastifyInstance, deps: ModuleDeps, opts: { onAgentChanged?: (tx: Queryable) => Promise<void> } = {}): void {
  registerAgentsRoutes(app, createAgentsService({ db: deps.database.db, ...opts }));
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['agents'] as const;
