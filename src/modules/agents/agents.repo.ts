import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import type { AgentsTable } from './agents.tables.js';

export type AgentRow = Selectable<AgentsTable>;

export async function findAgentRow(db: Queryable, organizationId: string, id: string, forUpdate = false): Promise<AgentRow | undefined> {
  let q = db.selectFrom('agents').selectAll().where('organizationId', '=', organizationId).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function listAgentRows(db: Queryable, organizationId: string, limit: number, offset: number): Promise<{ rows: AgentRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db.selectFrom('agents').selectAll().where('organizationId', '=', organizationId).orderBy('createdAt').orderBy('id').limit(limit).offset(offset).execute(),
    db.selectFrom('agents').select((eb) => eb.fn.countAll<number>().as('n')).where('organizationId', '=', organizationId).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
/** What a run executes of its agent, pinned if the agent changes before the run ends (runs' run-pinning.ts). */
export type PinnedAgent = Pick<AgentRow, 'id' | 'name' | 'description' | 'agentType' | 'systemPrompt' | 'modelAlias' | 'toolNames' | 'inputs' | 'structuredOutputSchema' | 'outputDestinationIds' | 'maxSteps' | 'maxDurationMs' | 'acceptanceCriteria' | 'notifyCriteriaFailed'> &
  /** Absent from snapshots taken before migration 0138: no policies, default settings. */
  Partial<Pick<AgentRow, 'toolPolicies' | 'approvalSettings'>>;

/**
 * The agent as a `PinnedAgent` JSON object, as an SQL expression (runs embed it in the UPDATE
 * that pins their runs, so the snapshot is the agent as that statement sees it). Keys are the
 * PinnedAgent's own.
 */
export function agentSnapshotSql(organizationId: string, agentId: string): RawBuilder<unknown> {
  return sql`(SELECT jsonb_build_object(
      'id', a.id, 'name', a.name, 'description', a.description, 'agentType', a.agent_type, 'systemPrompt', a.system_prompt, 'modelAlias', a.model_alias, 'toolNames', to_jsonb(a.tool_names),
      'inputs', a.inputs, 'structuredOutputSchema', a.structured_output_schema, 'outputDestinationIds', to_jsonb(a.output_destination_ids),
      'maxSteps', a.max_steps, 'maxDurationMs', a.max_duration_ms,
      'acceptanceCriteria', to_jsonb(a.acceptance_criteria), 'notifyCriteriaFailed', a.notify_criteria_failed,
      'toolPolicies', a.tool_policies, 'approvalSettings', a.approval_settings)
    FROM agents a WHERE a.id = ${agentId} AND a.organization_id = ${organizationId})`;
}
