import type { Database, Queryable } from '../../platform/db/database.js';
import { agentSnapshotSql, agentVersionSnapshot, findAgentRow, type PinnedAgent } from '../agents/index.js';

/**
 * Runs pin their agent: a run executes the agent as it was when the run was queued. Pinning is
 * copy-on-write, so queueing (webhook intake's hot path) writes nothing more: when an agent is
 * about to change (`agent.changed`, in the agent's transaction, before its UPDATE), its runs not
 * yet ended and not yet pinned get the agent as it still is (`agents`' snapshot) in
 * `agent_runs.agent_snapshot`. A run without a snapshot has an agent unchanged since it was queued.
 */
export async function pinRunsOfChangedAgent(tx: Queryable, { organizationId, agentId, change }: { organizationId: string; agentId: string; change: string }): Promise<void> {
  if (change !== 'updated') return; // a deleted agent's runs go with it
  await tx
    .updateTable('agentRuns')
    .set({ agentSnapshot: agentSnapshotSql(organizationId, agentId) as never })
    .where('organizationId', '=', organizationId)
    .where('agentId', '=', agentId)
    .where('status', 'in', ['waiting', 'running', 'awaiting_approval'])
    .where('agentSnapshot', 'is', null)
    .execute();
}

/**
 * The agent a claimed run executes: its snapshot, else the version it recorded when it was
 * queued (agents' versions: exactly the agent it was queued with, whatever committed since),
 * else (a run queued before versions existed) the live agent. The live agent is read before
 * the run's snapshot is looked at again, so an edit committing in between is seen as a snapshot
 * (the old agent) rather than as the edited agent.
 */
export async function agentOfRun(
  db: Database,
  run: { id: string; organizationId: string; agentId: string; agentSnapshot: unknown; agentVersion: number | null },
): Promise<PinnedAgent | undefined> {
  if (run.agentSnapshot) return run.agentSnapshot as PinnedAgent;
  if (run.agentVersion !== null) {
    const version = await agentVersionSnapshot(db, run.organizationId, run.agentId, run.agentVersion);
    if (version) return version;
  }
  const live = await findAgentRow(db, run.organizationId, run.agentId);
  const pinned = await db.selectFrom('agentRuns').select('agentSnapshot').where('id', '=', run.id).executeTakeFirst();
  return (pinned?.agentSnapshot as PinnedAgent | null | undefined) ?? live;
}
