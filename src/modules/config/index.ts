import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import type { AgentsService } from '../agents/index.js';
import type { DestinationsService } from '../destinations/index.js';
import type { ModelsService } from '../models/index.js';
import type { TriggersService } from '../triggers/index.js';
import type { McpServersService } from '../tools/index.js';
import { mcpServerKind } from './kinds/mcp-servers.js';
import type { CodeDetectionsService, RoutingService } from '../alerts/index.js';
import { codeDetectionKind, triageRoutesKind } from './kinds/alerts.js';
import { registerConfigRoutes } from './config.routes.js';
import { createConfigService } from './config.service.js';
import { agentKind } from './kinds/agents.js';
import { outputDestinationKind } from './kinds/destinations.js';
import { modelKind } from './kinds/models.js';
import { triggerKind } from './kinds/triggers.js';

export { ConfigFileError, parseConfigFiles, resolveSecretReferences, type ParsedFile } from './documents.fns.js';
export { API_VERSION, KINDS } from './config.schemas.js';

/** The owning modules' services: every write of an apply goes through their commands. */
export interface ConfigModuleServices {
  agents: AgentsService;
  destinations: DestinationsService;
  models: ModelsService;
  triggers: TriggersService;
  mcpServers: McpServersService;
  alerts: { routing: RoutingService; codeDetections: CodeDetectionsService };
}

/** Agents as code: plan/apply/export (docs/agents-as-code.md). Owns no table. */
export function registerConfigModule(app: FastifyInstance, deps: ModuleDeps, services: ConfigModuleServices): void {
  const { db } = deps.database;
  const kinds = [
    modelKind(services.models, deps),
    mcpServerKind(services.mcpServers, { db, secrets: deps.secrets }),
    outputDestinationKind(services.destinations, { db, secrets: deps.secrets }),
    agentKind(services.agents),
    triggerKind(services.triggers, deps),
    codeDetectionKind(services.alerts.codeDetections),
    triageRoutesKind(services.alerts.routing),
  ];
  registerConfigRoutes(app, createConfigService({ db, kinds, allowPrivateNetworks: deps.config.allowPrivateNetworks }));
}

/** The tables this module owns: none (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = [] as const;
