import type { AgentDto, AgentsService } from '../../agents/index.js';
import { agentSpec } from '../config.schemas.js';
import { idOf, type ApplyStep, type Desired, type KindHandler, type Reference } from './kind.js';

const MCP_SERVER = /^mcp:([^/]+)\//;

/** The agent fields a document holds: the agent's (its GET) or a version's with the agent's `maxConcurrentRuns`, which versions do not record. */
export type AgentDocumentSource = Omit<AgentDto, 'id' | 'organizationId' | 'name' | 'version' | 'managedBy' | 'managedSource' | 'driftedFromCodeAt' | 'warnings' | 'createdAt' | 'updatedAt'>;

/** An agent in document form: references by name (`destinations`: id → name; an unknown id stays as it is). */
export function agentDocumentSpec(a: AgentDocumentSource, destinations: ReadonlyMap<string, string>): Record<string, unknown> {
  return {
    description: a.description,
    systemPrompt: a.systemPrompt,
    model: a.modelAlias,
    toolNames: a.toolNames,
    inputs: a.inputs,
    structuredOutputSchema: a.structuredOutputSchema,
    agentType: a.agentType,
    outputDestinations: a.outputDestinationIds.map((id) => destinations.get(id) ?? id),
    maxSteps: a.maxSteps,
    maxDurationMs: a.maxDurationMs,
    maxConcurrentRuns: a.maxConcurrentRuns,
    acceptanceCriteria: a.acceptanceCriteria,
    notifyCriteriaFailed: a.notifyCriteriaFailed,
    toolPolicies: a.toolPolicies,
    approvalSettings: a.approvalSettings,
  };
}

/** `builtinTools`: the built-in tool names an agent's `toolNames` may list (the tool catalog's). */
export function agentKind(agents: AgentsService, builtinTools: readonly string[]): KindHandler {
  const AgentSpec = agentSpec(builtinTools);
  const input = (step: ApplyStep, d: Desired) => {
    const { model, outputDestinations, ...rest } = AgentSpec.parse(d.spec);
    return { ...rest, name: d.name, modelAlias: model, outputDestinationIds: outputDestinations.map((n) => idOf(step.ids, 'OutputDestination', n)) };
  };
  return {
    kind: 'Agent',
    apiFields: { modelAlias: 'model', outputDestinationIds: 'outputDestinations' },
    permissions: { read: ['agent.read'], create: ['agent.create'], update: ['agent.manage'], remove: ['agent.manage'] },
    schema: AgentSpec,
    parse: (_name, spec) => AgentSpec.safeParse(spec),
    references(spec) {
      const refs: Reference[] = [];
      // `default` may stay unconfigured, as through the API (a run then fails with a clear message).
      if (typeof spec.model === 'string' && spec.model !== 'default') refs.push({ path: ['model'], kind: 'Model', name: spec.model });
      if (Array.isArray(spec.outputDestinations)) spec.outputDestinations.forEach((n, i) => refs.push({ path: ['outputDestinations', i], kind: 'OutputDestination', name: String(n) }));
      if (Array.isArray(spec.toolNames)) {
        spec.toolNames.forEach((t, i) => {
          const server = MCP_SERVER.exec(String(t))?.[1];
          if (server) refs.push({ path: ['toolNames', i], kind: 'McpServer', name: server });
        });
      }
      return refs;
    },
    async current(ctx, names) {
      const { agents: list } = await agents.list(ctx, Number.MAX_SAFE_INTEGER, 0);
      const destinations = names.get('OutputDestination') ?? new Map();
      return list.map((a) => ({
        id: a.id,
        name: a.name,
        spec: agentDocumentSpec(a, destinations),
        secrets: {},
        managedBy: a.managedBy,
        managedSource: a.managedSource,
      }));
    },
    async create(step, d) {
      return (await agents.create(step.ctx, input(step, d), step.opts)).id;
    },
    async update(step, c, d) {
      await agents.update(step.ctx, c.id, input(step, d), step.opts);
    },
    async remove(step, c) {
      await agents.remove(step.ctx, c.id, step.opts);
    },
  };
}
