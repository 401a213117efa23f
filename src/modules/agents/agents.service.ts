import { uuidv7 } from 'uuidv7';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import type { EventBus, EventSpec } from '../../platform/events.js';
import { writeAudit } from '../../platform/audit.js';
import { withTransaction } from '../../platform/cache/transaction.js';
import { NotFoundError, ValidationError, type ValidationIssue } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { parseMcpToolName, unknownMcpServers } from '../tools/index.js';
import { findAgentRow, listAgentRows, type AgentRow } from './agents.repo.js';
import { unknownDestinationIds } from '../destinations/index.js';
import type { AgentCreateT, AgentDto } from './agents.schemas.js';
import { outputSchemaWarnings } from './output-schema.fns.js';

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
    acceptanceCriteria: row.acceptanceCriteria,
    notifyCriteriaFailed: row.notifyCriteriaFailed,
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
  if (issues.length) throw new ValidationError(issues);
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
    acceptanceCriteria: input.acceptanceCriteria,
    notifyCriteriaFailed: input.notifyCriteriaFailed,
  };
}

declare module '../../platform/events.js' {
  interface DomainEvents {
    /** An agent is about to change or go, in that transaction before the write (a subscriber still reads the agent as it was). */
    'agent.changed': EventSpec<{ organizationId: string; agentId: string; change: 'updated' | 'deleted' }>;
  }
}

/** `events`: `agent.changed` in an update's or deletion's transaction (runs pin their waiting runs; triggers drop their intake cache). */
export function createAgentsService(deps: { db: Database; events: EventBus }) {
  const { db, events } = deps;

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

    async create(ctx: RequestContext, input: AgentCreateT): Promise<AgentDto> {
      return db.transaction().execute(async (tx) => {
        await checkReferences(tx, ctx.actor.organizationId, input);
        const now = new Date();
        const row = await tx
          .insertInto('agents')
          .values({ id: uuidv7(), organizationId: ctx.actor.organizationId, ...columns(input), createdBy: ctx.actor.userId, createdAt: now, updatedAt: now })
          .returningAll()
          .executeTakeFirstOrThrow();
        await writeAudit(tx, ctx, { action: 'agent.create', resourceType: 'agent', resourceId: row.id, metadata: { name: row.name } });
        return toAgentDto(row);
      });
    },

    async update(ctx: RequestContext, id: string, input: AgentCreateT): Promise<AgentDto> {
      return withTransaction(db, async (tx) => {
        await mustFind(tx, ctx, id, true);
        await events.emit(tx, 'agent.changed', { organizationId: ctx.actor.organizationId, agentId: id, change: 'updated' });
        await checkReferences(tx, ctx.actor.organizationId, input);
        const row = await tx
          .updateTable('agents')
          .set({ ...columns(input), updatedBy: ctx.actor.userId, updatedAt: new Date() })
          .where('organizationId', '=', ctx.actor.organizationId)
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
        await writeAudit(tx, ctx, { action: 'agent.update', resourceType: 'agent', resourceId: id, metadata: { name: row.name } });
        return toAgentDto(row);
      });
    },

    /** Deletes the agent with its triggers and runs (the audit log keeps the record). */
    async remove(ctx: RequestContext, id: string): Promise<{ success: boolean }> {
      await withTransaction(db, async (tx) => {
        const row = await mustFind(tx, ctx, id, true);
        await events.emit(tx, 'agent.changed', { organizationId: ctx.actor.organizationId, agentId: id, change: 'deleted' });
        await tx.deleteFrom('agents').where('organizationId', '=', ctx.actor.organizationId).where('id', '=', id).execute();
        await writeAudit(tx, ctx, { action: 'agent.delete', resourceType: 'agent', resourceId: id, metadata: { name: row.name } });
      });
      return { success: true };
    },
  };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
