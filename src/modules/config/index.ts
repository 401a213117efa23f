import { defineModule, type NeededServices, type ServiceDeps } from '../../platform/module.js';
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
import type { RequestContext } from '../../platform/context.js';

export { ConfigFileError, parseConfigFiles, resolveSecretReferences, type ParsedFile, type ResolvedReference } from './documents.fns.js';
export { API_VERSION, KINDS } from './config.schemas.js';

/** Agents as code: plan/apply/export (docs/agents-as-code.md), every write through the owning modules' services. */
function configServices({ db, secrets, tools, allowPrivateNetworks }: Pick<ServiceDeps, 'db' | 'secrets' | 'tools' | 'allowPrivateNetworks'>, needed: NeededServices) {
  const alerts = needed.of(alertsModule);
  const agents = needed.of(agentsModule);
  const destinations = outputDestinationKind(needed.of(destinationsModule), { db, secrets });
  const kinds = [
    modelKind(needed.of(modelsModule), { secrets }),
    mcpServerKind(needed.of(toolsModule), { db, secrets }),
    destinations,
    agentKind(agents, Object.keys(tools)),
    triggerKind(needed.of(triggersModule), { secrets }),
    codeDetectionKind(alerts.codeDetections),
    triageRoutesKind(alerts.routing),
  ];
  return {
    ...createConfigService({ db, kinds, allowPrivateNetworks }),
    /** A version of an agent as the YAML document to paste into its file (docs/agent-versions.md). */
    versionDocument: (ctx: RequestContext, agentId: string, version: number) => agentVersionDocument({ db, agents, destinations }, ctx, agentId, version),
  };
}

/** The tables this module owns: none (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = [] as const;

export const configModule = defineModule({
  name: 'config',
  owns: ownedTables,
  needs: [modelsModule, toolsModule, destinationsModule, agentsModule, triggersModule, alertsModule],
  services: configServices,
  routes: (app, _deps, services) => {
    registerConfigRoutes(app, services.own);
    registerAgentVersionDocumentRoute(app, services.own.versionDocument);
  },
});
