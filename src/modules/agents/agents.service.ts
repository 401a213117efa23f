import { uuidv7 } from 'uuidv7';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import type { EventBus, EventSpec } from '../../platform/events.js';
import { writeAudit } from '../../platform/audit.js';
import { withTransaction } from '../../platform/cache/transaction.js';
import { assertEditable, managedColumns, type WriteOptions } from '../../platform/managed.js';
import { NotFoundError, ValidationError, type ValidationIssue } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { parseMcpToolName, unknownMcpServers } from '../tools/index.js';
import { findAgentRow, listAgentRows, type AgentRow } from './agents.repo.js';
import { unknownDestinationIds } from '../destinations/index.js';
import { DEFAULT_APPROVAL_SETTINGS, type AgentCreateT, type AgentDto, type ApprovalSettingsT } from './agents.schemas.js';
import { appendAgentVersion, NO_TRIGGERS, originOf, type TriggerSettingsSql, type VersionOrigin } from './agent-versions.repo.js';
import { outputSchemaWarnings } from './output-schema.fns.js';

/** How an agent is written: config apply's options (platform/managed.ts) and, for a restore, where its version comes from. */
export type AgentWriteOptions = WriteOptions & { origin?: VersionOrigin };

/** The version's origin: given (a restore), config apply (`code`, with the apply's source), else the request's (api or console). */
function versionOrigin(ctx: RequestContext, opts: AgentWriteOptions): VersionOrigin {
  if (opts.origin) return opts.origin;
  if (opts.managed) return { source: 'code', sourceRef: opts.managed.source };
  return originOf(ctx);
}

export function toAgentDto(row: AgentRow): AgentDto {
  return {
    id: row.id,
    organizationId: row.organizationId,
    name: row.name,
    description: row.description,
    systemPrompt: row.systemPrompt,
    modelAlias: row.modelAlias,
    toolNames: row.toolNames,
    inputs: row.inputs as AgentDto['inputs'],
    structuredOutputSchema: row.structuredOutputSchema,
    agentType: row.agentType,
    outputDestinationIds: row.outputDestinationIds,
    maxSteps: row.maxSteps,
    maxDurationMs: row.maxDurationMs,
    maxConcurrentRuns: row.maxConcurrentRuns,
    version: row.version,
    managedBy: row.managedBy,
    managedSource: row.managedSource,
    driftedFromCodeAt: iso(row.driftedFromCodeAt),
    acceptanceCriteria: row.acceptanceCriteria,
    notifyCriteriaFailed: row.notifyCriteriaFailed,
    toolPolicies: row.toolPolicies as AgentDto['toolPolicies'],
    approvalSettings: { ...DEFAULT_APPROVAL_SETTINGS, ...(row.approvalSettings as Partial<ApprovalSettingsT>) },
    warnings: outputSchemaWarnings(row.structuredOutputSchema),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** References must name the organization's own destinations and MCP servers. */
async function checkReferences(db: Queryable, organizationId: string, input: AgentCreateT): Promise<void> {
  const issues: ValidationIssue[] = [];
  for (const id of await unknownDestinationIds(db, organizationId, input.outputDestinationIds)) {
    issues.push({ path: `outputDestinationIds.${input.outputDestinationIds.indexOf(id)}`, message: `no output destination ${id}`, code: 'unknown_reference', location: 'body' });
  }
  const servers = [...new Set(input.toolNames.map((n) => parseMcpToolName(n)?.server).filter((s): s is string => !!s))];
  const missing = new Set(await unknownMcpServers(db, organizationId, servers));
  input.toolNames.forEach((n, i) => {
    const server = parseMcpToolName(n)?.server;
    if (server && missing.has(server)) issues.push({ path: `toolNames.${i}`, message: `no MCP server named "${server}"`, code: 'unknown_reference', location: 'body' });
  });
  // A policy for a tool the agent does not list would never apply: say so rather than keep it silently.
  const listed = new Set(input.toolNames);
  for (const name of Object.keys(input.toolPolicies ?? {})) {
    const server = parseMcpToolName(name)?.server;
    if (!listed.has(name) && !(server && listed.has(`mcp:${server}/*`))) {
      issues.push({ path: `toolPolicies.${name}`, message: `"${name}" is not one of the agent's toolNames`, code: 'unknown_reference', location: 'body' });
    }
  }
  if (issues.length) throw new ValidationError(issues);
}

/**
 * A forced hand edit (or restore) of an agent managed by code marks it as drifted from its file
 * (`driftedFromCodeAt`, kept from the first such edit); an apply clears the mark.
 */
function driftColumns(existing: AgentRow, opts: AgentWriteOptions): { driftedFromCodeAt?: Date | null } {
  if (opts.managed !== undefined) return { driftedFromCodeAt: null };
  if (existing.managedBy === 'code' && opts.force) return { driftedFromCodeAt: existing.driftedFromCodeAt ?? new Date() };
  return {};
}

/** What a 409 on restoring a code-managed agent tells to do instead: paste the version's document into the file. */
function restoreAdvice(agentId: string, version: number | null | undefined): string {
  return `put version ${version}'s document (GET /api/agents/${agentId}/versions/${version}/document) in its file and apply it, or pass force=true to restore it here anyway (the agent is then marked as drifted from code until the next apply)`;
}

function columns(input: AgentCreateT) {
  return {
    name: input.name,
    description: input.description,
    systemPrompt: input.systemPrompt,
    modelAlias: input.modelAlias,
    toolNames: [...new Set(input.toolNames)],
    inputs: JSON.stringify(input.inputs),
    structuredOutputSchema: input.structuredOutputSchema ? JSON.stringify(input.structuredOutputSchema) : null,
    agentType: input.agentType,
    outputDestinationIds: [...new Set(input.outputDestinationIds)],
    maxSteps: input.maxSteps,
    maxDurationMs: input.maxDurationMs,
    maxConcurrentRuns: input.maxConcurrentRuns,
    acceptanceCriteria: input.acceptanceCriteria,
    notifyCriteriaFailed: input.notifyCriteriaFailed,
    toolPolicies: JSON.stringify(input.toolPolicies ?? {}),
    approvalSettings: JSON.stringify(input.approvalSettings ?? DEFAULT_APPROVAL_SETTINGS),
  };
}

declare module '../../platform/events.js' {
  interface DomainEvents {
    /** An agent is about to change or go, in that transaction before the write (a subscriber still reads the agent as it was). */
    'agent.changed': EventSpec<{ organizationId: string; agentId: string; change: 'updated' | 'deleted' }>;
  }
}

/**
 * `events`: `agent.changed` in an update's or deletion's transaction (runs pin their waiting runs; triggers drop their intake cache).
 * `triggerSettings`: the triggers' settings each version records (triggers' reader, injected by the composition root).
 * Every create and update appends the agent's next version in its transaction (agent-versions.repo.ts), unless nothing changed.
 */
export function createAgentsService(deps: { db: Database; events: EventBus; triggerSettings?: TriggerSettingsSql }) {
  const { db, events } = deps;
  const triggerSettings = deps.triggerSettings ?? NO_TRIGGERS;

  async function mustFind(q: Queryable, ctx: RequestContext, id: string, forUpdate = false): Promise<AgentRow> {
    const row = await findAgentRow(q, ctx.actor.organizationId, id, forUpdate);
    if (!row) throw new NotFoundError('Agent');
    return row;
  }

  return {
    async list(ctx: RequestContext, limit: number, offset: number) {
      const { rows, total } = await listAgentRows(db, ctx.actor.organizationId, limit, offset);
      return { agents: rows.map(toAgentDto), totalCount: total };
    },

    async get(ctx: RequestContext, id: string): Promise<AgentDto> {
      return toAgentDto(await mustFind(db, ctx, id));
    },

    /** `opts`: config apply's transaction and "managed by code" marking (platform/managed.ts), and where the version came from. */
    async create(ctx: RequestContext, input: AgentCreateT, opts: AgentWriteOptions = {}): Promise<AgentDto> {
      const origin = versionOrigin(ctx, opts);
      return withTransaction(opts.tx ?? db, async (tx) => {
        await checkReferences(tx, ctx.actor.organizationId, input);
        const now = new Date();
        const row = await tx
          .insertInto('agents')
          .values({ id: uuidv7(), organizationId: ctx.actor.organizationId, ...columns(input), ...managedColumns(opts), createdBy: ctx.actor.userId, createdAt: now, updatedAt: now })
          .returningAll()
          .executeTakeFirstOrThrow();
        const version = (await appendAgentVersion(tx, row.organizationId, row.id, ctx.actor, origin, triggerSettings)) ?? row.version;
        await writeAudit(tx, ctx, { action: 'agent.create', resourceType: 'agent', resourceId: row.id, metadata: { name: row.name, version } });
        return toAgentDto({ ...row, version });
      });
    },

    /**
     * Replaces the agent; `origin.source` `restore` is audited as `agent.restore` (agent-versions.service.ts).
     * A code-managed agent: 409 unless `opts.force` or config apply (platform/managed.ts).
     */
    async update(ctx: RequestContext, id: string, input: AgentCreateT, opts: AgentWriteOptions = {}): Promise<AgentDto> {
      const origin = versionOrigin(ctx, opts);
      return withTransaction(opts.tx ?? db, async (tx) => {
        const existing = await mustFind(tx, ctx, id, true);
        assertEditable(existing, 'Agent', existing.name, opts, origin.source === 'restore' ? restoreAdvice(id, origin.restoredFrom) : undefined);
        await events.emit(tx, 'agent.changed', { organizationId: ctx.actor.organizationId, agentId: id, change: 'updated' });
        await checkReferences(tx, ctx.actor.organizationId, input);
        const row = await tx
          .updateTable('agents')
          .set({ ...columns(input), ...managedColumns(opts), ...driftColumns(existing, opts), updatedBy: ctx.actor.userId, updatedAt: new Date() })
          .where('organizationId', '=', ctx.actor.organizationId)
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
        const version = (await appendAgentVersion(tx, row.organizationId, id, ctx.actor, origin, triggerSettings)) ?? row.version;
        const restore = origin.source === 'restore' ? { restoredFrom: origin.restoredFrom } : {};
        await writeAudit(tx, ctx, { action: origin.source === 'restore' ? 'agent.restore' : 'agent.update', resourceType: 'agent', resourceId: id, metadata: { name: row.name, version, ...restore } });
        return toAgentDto({ ...row, version });
      });
    },

    /** Deletes the agent with its triggers and runs (the audit log keeps the record). */
    async remove(ctx: RequestContext, id: string, opts?: WriteOptions): Promise<{ success: boolean }> {
      await withTransaction(opts?.tx ?? db, async (tx) => {
        const row = await mustFind(tx, ctx, id, true);
        assertEditable(row, 'Agent', row.name, opts);
        await events.emit(tx, 'agent.changed', { organizationId: ctx.actor.organizationId, agentId: id, change: 'deleted' });
        await tx.deleteFrom('agents').where('organizationId', '=', ctx.actor.organizationId).where('id', '=', id).execute();
        await writeAudit(tx, ctx, { action: 'agent.delete', resourceType: 'agent', resourceId: id, metadata: { name: row.name } });
      });
      return { success: true };
    },
  };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
