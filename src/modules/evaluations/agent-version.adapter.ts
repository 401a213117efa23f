import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import { ValidationError } from '../../platform/http/errors.js';
import { agentSnapshotSql, agentVersionOf, agentVersionSnapshot } from '../agents/index.js';

/**
 * The agent an evaluation runs, as a pinned snapshot (every case runs the same agent, whatever
 * changes meanwhile) and the version it is: `version` given, that version of the agent (400
 * `unknown_reference` when the agent has no such version); omitted, the agent as it is now and
 * its current version.
 */
export async function evaluatedAgent(q: Queryable, organizationId: string, agentId: string, version: number | undefined): Promise<{ snapshot: Record<string, unknown>; version: number | null }> {
  if (version !== undefined) {
    const snapshot = await agentVersionSnapshot(q, organizationId, agentId, version);
    if (!snapshot) throw ValidationError.single('version', `the agent has no version ${version} (GET /api/agents/{agentId}/versions lists them)`, 'unknown_reference');
    return { snapshot, version };
  }
  const { rows } = await sql<{ snapshot: Record<string, unknown> | null; version: number | null }>`
    SELECT ${agentSnapshotSql(organizationId, agentId)} AS snapshot, ${agentVersionOf(agentId)} AS version`.execute(q);
  return { snapshot: rows[0]?.snapshot ?? {}, version: rows[0]?.version ?? null };
}
