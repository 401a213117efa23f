import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import { NotFoundError } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { findAgentRow } from './agents.repo.js';
import type { AgentCreateT, AgentDto } from './agents.schemas.js';
import { DEFAULT_APPROVAL_SETTINGS } from './agents.schemas.js';
import type { AgentsService } from './agents.service.js';
import { completeSnapshot, diffSnapshots } from './agent-versions.fns.js';
import { findAgentVersionRow, listAgentVersionRows, type AgentVersionRow, type AgentVersionSnapshot } from './agent-versions.repo.js';
import type { AgentVersionDto, AgentVersionSummaryDto } from './agent-versions.schemas.js';

function toSummary(row: AgentVersionRow): AgentVersionSummaryDto {
  return {
    agentId: row.agentId,
    version: row.version,
    source: row.source,
    sourceRef: row.sourceRef,
    restoredFrom: row.restoredFrom,
    createdAt: iso(row.createdAt)!,
    createdBy: { type: row.actorType === 'user' ? 'user' : 'system', userId: row.actorUserId, apiKeyId: row.actorApiKeyId },
  };
}

/**
 * The agent fields a version restores (its triggers are not: they keep their secrets and their own
 * history; nor is `maxConcurrentRuns`, an operating limit that versions do not record: it stays).
 */
function agentFieldsOf(s: AgentVersionSnapshot, maxConcurrentRuns: number | null): AgentCreateT {
  return {
    name: s.name,
    description: s.description,
    systemPrompt: s.systemPrompt,
    modelAlias: s.modelAlias,
    toolNames: s.toolNames,
    inputs: s.inputs as AgentCreateT['inputs'],
    structuredOutputSchema: s.structuredOutputSchema,
    agentType: s.agentType,
    outputDestinationIds: s.outputDestinationIds,
    maxSteps: s.maxSteps,
    maxDurationMs: s.maxDurationMs,
    maxConcurrentRuns,
    acceptanceCriteria: s.acceptanceCriteria ?? [],
    notifyCriteriaFailed: s.notifyCriteriaFailed ?? false,
    toolPolicies: (s.toolPolicies ?? {}) as AgentCreateT['toolPolicies'],
    approvalSettings: { ...DEFAULT_APPROVAL_SETTINGS, ...(s.approvalSettings as Partial<AgentCreateT['approvalSettings']> | undefined) },
  };
}

/** Versions of an agent: read, compared, restored (a restore is an update through the agents service, so it is versioned and audited like one). */
export function createAgentVersionsService(deps: { db: Database; agents: AgentsService }) {
  const { db, agents } = deps;

  async function mustFindAgent(ctx: RequestContext, agentId: string): Promise<void> {
    if (!(await findAgentRow(db, ctx.actor.organizationId, agentId))) throw new NotFoundError('Agent');
  }

  async function mustFindVersion(ctx: RequestContext, agentId: string, version: number): Promise<AgentVersionRow> {
    const row = await findAgentVersionRow(db, ctx.actor.organizationId, agentId, version);
    if (row) return row;
    await mustFindAgent(ctx, agentId); // an unknown agent says so rather than "version not found"
    throw new NotFoundError('Agent version');
  }

  return {
    async list(ctx: RequestContext, agentId: string, limit: number, offset: number) {
      const { rows, total } = await listAgentVersionRows(db, ctx.actor.organizationId, agentId, limit, offset);
      if (total === 0) await mustFindAgent(ctx, agentId); // every agent has at least version 1
      return { versions: rows.map(toSummary), totalCount: total };
    },

    async get(ctx: RequestContext, agentId: string, version: number): Promise<AgentVersionDto> {
      const row = await mustFindVersion(ctx, agentId, version);
      return { ...toSummary(row), snapshot: completeSnapshot(row.snapshot as AgentVersionDto['snapshot']) };
    },

    async diff(ctx: RequestContext, agentId: string, version: number, against = version - 1) {
      const after = await mustFindVersion(ctx, agentId, version);
      const before = against === 0 ? null : await mustFindVersion(ctx, agentId, against);
      return { agentId, version, against, changes: diffSnapshots(before?.snapshot ?? null, after.snapshot) };
    },

    /**
     * Makes the agent what it was at `version`: a new version equal to it (none when the agent already is).
     * An agent managed by code is 409 (pointing at the version's document to paste in its file) unless
     * `force`, which restores it like a forced edit: marked as drifted from code until the next apply.
     */
    async restore(ctx: RequestContext, agentId: string, version: number, opts: { force?: boolean } = {}): Promise<AgentDto> {
      const row = await mustFindVersion(ctx, agentId, version);
      const current = await findAgentRow(db, ctx.actor.organizationId, agentId);
      const fields = agentFieldsOf(completeSnapshot(row.snapshot as AgentVersionSnapshot), current?.maxConcurrentRuns ?? null);
      return agents.update(ctx, agentId, fields, { origin: { source: 'restore', restoredFrom: version }, ...(opts.force ? { force: true } : {}) });
    },
  };
}

export type AgentVersionsService = ReturnType<typeof createAgentVersionsService>;
