import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import type { AgentsTable } from '../../platform/db/schema.js';

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

/** Ids among `ids` that are not destinations of the organization. */
export async function unknownDestinationIds(db: Queryable, organizationId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  // FOR KEY SHARE: a destination being deleted (locked FOR UPDATE) makes this wait for that
  // delete, and one saved here cannot be deleted until the agent's transaction ends, so no agent
  // is left pointing at a destination that is gone (the delete's 409 sees the agent).
  const found = await db.selectFrom('outputDestinations').select('id').where('organizationId', '=', organizationId).where('id', 'in', ids).forKeyShare().execute();
  const known = new Set(found.map((r) => r.id));
  return ids.filter((id) => !known.has(id));
}

/** MCP server names among `names` that the organization has not registered. */
export async function unknownMcpServers(db: Queryable, organizationId: string, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const found = await db.selectFrom('mcpServers').select('name').where('organizationId', '=', organizationId).where('name', 'in', names).forKeyShare().execute();
  const known = new Set(found.map((r) => r.name));
  return names.filter((n) => !known.has(n));
}

/** What a run executes of its agent, pinned if the agent changes before the run ends (runs' run-pinning.ts). */
export type PinnedAgent = Pick<AgentRow, 'id' | 'name' | 'systemPrompt' | 'modelAlias' | 'toolNames' | 'inputs' | 'structuredOutputSchema' | 'outputDestinationIds' | 'maxSteps' | 'maxDurationMs'>;

/**
 * The agent as a `PinnedAgent` JSON object, as an SQL expression (runs embed it in the UPDATE
 * that pins their runs, so the snapshot is the agent as that statement sees it). Keys are the
 * PinnedAgent's own.
 */
export function agentSnapshotSql(organizationId: string, agentId: string): RawBuilder<unknown> {
  return sql`(SELECT jsonb_build_object(
      'id', a.id, 'name', a.name, 'systemPrompt', a.system_prompt, 'modelAlias', a.model_alias, 'toolNames', to_jsonb(a.tool_names),
      'inputs', a.inputs, 'structuredOutputSchema', a.structured_output_schema, 'outputDestinationIds', to_jsonb(a.output_destination_ids),
      'maxSteps', a.max_steps, 'maxDurationMs', a.max_duration_ms)
    FROM agents a WHERE a.id = ${agentId} AND a.organization_id = ${organizationId})`;
}
