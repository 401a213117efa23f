import { sql, type RawBuilder } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';

/**
 * What other modules may read of an agent (agents own the `agents` table). Two shapes: functions
 * for a caller that has ids in hand, and SQL expressions for a caller whose statement must stay
 * one round trip (alert intake reads the alert back with its agents' names in the statement that
 * writes it): the SQL naming `agents` stays here, the caller only places the expression.
 */

/** The agent's name (null once the agent is gone), as an expression over an agent id column or value. */
export function agentNameOf(agentId: RawBuilder<unknown> | string): RawBuilder<string | null> {
  const id = typeof agentId === 'string' ? sql.ref(agentId) : agentId;
  return sql<string | null>`(SELECT name FROM agents WHERE id = ${id})`;
}

/** The agent's run duration limit in milliseconds, as an expression (null once the agent is gone). */
export function agentMaxDurationOf(agentId: RawBuilder<unknown> | string): RawBuilder<number | null> {
  const id = typeof agentId === 'string' ? sql.ref(agentId) : agentId;
  return sql<number | null>`(SELECT max_duration_ms FROM agents WHERE id = ${id})`;
}

/** The agent's limit of runs holding a worker slot at once, as an expression (null: none of its own, or the agent is gone). */
export function agentMaxConcurrentRunsOf(agentId: RawBuilder<unknown> | string): RawBuilder<number | null> {
  const id = typeof agentId === 'string' ? sql.ref(agentId) : agentId;
  return sql<number | null>`(SELECT max_concurrent_runs FROM agents WHERE id = ${id})`;
}

/**
 * The agent's current version, as an expression over an agent id (a value, or an expression of
 * the caller's statement: the run INSERT records it in the same statement, so webhook intake's
 * enqueue costs no extra round trip).
 */
export function agentVersionOf(agentId: string | RawBuilder<unknown>): RawBuilder<number | null> {
  return sql<number | null>`(SELECT version FROM agents WHERE id = ${agentId})`;
}

/** Names by id of the organization's agents among `ids` (absent: no such agent). */
export async function agentNames(db: Queryable, organizationId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('agents').select(['id', 'name']).where('organizationId', '=', organizationId).where('id', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** Every agent of the organization with its tools, by name then id (routing's choices and loop check). */
export async function organizationAgents(db: Queryable, organizationId: string): Promise<Array<{ id: string; name: string; toolNames: string[] }>> {
  return db.selectFrom('agents').select(['id', 'name', 'toolNames']).where('organizationId', '=', organizationId).orderBy('name').orderBy('id').execute();
}
