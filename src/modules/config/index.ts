import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule, type NeededServices } from '../../platform/module.js';
import { agentsModule } from '../agents/index.js';
import { destinationsModule } from '../destinations/index.js';
import { modelsModule } from '../models/index.js';
import { triggersModule } from '../triggers/index.js';
import { toolsModule } from '../tools/index.js';
import { alertsModule } from '../alerts/index.js';
import { mcpServerKind } from './kinds/mcp-servers.js';
import { codeDetectionKind, triageRoutesKind } from './kinds/alerts.js';
import { registerAgentVersionDocumentRoute, registerConfigRoutes } from './config.routes.js';
import { agentVersionDocument } from './agent-version-document.js';
import { createConfigService } from './config.service.js';
import { agentKind } from './kinds/agents.js';
import { outputDestinationKind } from './kinds/destinations.js';
import { modelKind } from './kinds/models.js';
import { triggerKind } from './kinds/triggers.js';

export { ConfigFileError, parseConfigFiles, resolveSecretReferences, type ParsedFile, type ResolvedReference } from './documents.fns.js';
export { API_VERSION, KINDS } from './config.schemas.js';

/** Agents as code: plan/apply/export (docs/agents-as-code.md), every write through the owning modules' services. */
function registerConfigModule(app: FastifyInstance, deps: ModuleDeps, needed: NeededServices): void {
  const { db } = deps.database;
  const alerts = needed.of(alertsModule);
  const destinations = outputDestinationKind(needed.of(destinationsModule), { db, secrets: deps.secrets });
  const kinds = [
    modelKind(needed.of(modelsModule), deps),
    mcpServerKind(needed.of(toolsModule), { db, secrets: deps.secrets }),
    destinations,
    agentKind(needed.of(agentsModule), Object.keys(deps.tools)),
    triggerKind(needed.of(triggersModule), deps),
    codeDetectionKind(alerts.codeDetections),
    triageRoutesKind(alerts.routing),
  ];
  registerConfigRoutes(app, createConfigService({ db, kinds, allowPrivateNetworks: deps.config.allowPrivateNetworks }));
  registerAgentVersionDocumentRoute(app, (ctx, agentId, version) => agentVersionDocument({ db, agents: needed.of(agentsModule), destinations }, ctx, agentId, version));
}

/** The tables this module owns: none (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = [] as const;

export const configModule = defineModule({
  name: 'config',
  owns: ownedTables,
  needs: [modelsModule, toolsModule, destinationsModule, agentsModule, triggersModule, alertsModule],
  routes: (app, deps, services) => registerConfigModule(app, deps, services),
});
