import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import { ValidationError } from '../../platform/http/errors.js';
import { agentSnapshotSql } from '../agents/index.js';

/**
 * The agent an evaluation runs, as a pinned snapshot (every case runs the same agent, whatever
 * changes meanwhile) and the version it is. `version` omitted: the agent as it is now.
 *
 * MERGE POINT (agent versions, issue 30): this build has no agent versions, so a `version` is
 * refused (400). Once agents' index exports `agentVersionSnapshot(q, organizationId, agentId,
 * version)`, answer `{ snapshot: await agentVersionSnapshot(...), version }` here (400
 * `unknown_reference` when it is undefined) and the agent's current version when omitted; nothing
 * else in the evaluations module depends on versions.
 */
export async function evaluatedAgent(q: Queryable, organizationId: string, agentId: string, version: number | undefined): Promise<{ snapshot: Record<string, unknown>; version: number | null }> {
  if (version !== undefined) {
    throw ValidationError.single('version', 'agent versions are not available in this build: omit version to evaluate the agent as it is now', 'unsupported');
  }
  const { rows } = await sql<{ snapshot: Record<string, unknown> | null }>`SELECT ${agentSnapshotSql(organizationId, agentId)} AS snapshot`.execute(q);
  return { snapshot: rows[0]?.snapshot ?? {}, version: null };
}
