import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import type { AgentVersionsTable } from './agents.tables.js';
import type { AnyActor } from '../../platform/auth/actor.js';
import { agentSnapshotSql, type PinnedAgent } from './agents.repo.js';

export type AgentVersionRow = Selectable<AgentVersionsTable>;
export type VersionSource = AgentVersionsTable['source'];

/**
 * An agent's triggers' settings (never their secrets) as a jsonb array expression, written by
 * the module that owns triggers, which answers it as the reader `agentTriggerSettings` (agents
 * cannot import triggers: triggers depend on agents).
 */
export type TriggerSettingsSql = (organizationId: string, agentId: string) => RawBuilder<unknown>;
export const NO_TRIGGERS: TriggerSettingsSql = () => sql`'[]'::jsonb`;

declare module '../../platform/wiring.js' {
  interface ModuleReaders {
    /** An agent's triggers' settings as SQL, recorded in each of its versions; triggers answer it. */
    agentTriggerSettings: TriggerSettingsSql;
  }
}

/** One version's snapshot: the agent as a run executes it (PinnedAgent) and its triggers' settings. */
export type AgentVersionSnapshot = PinnedAgent & { triggers: Array<Record<string, unknown>> };

/** Where a change came from, recorded with its version. */
export interface VersionOrigin {
  source: Exclude<VersionSource, 'migration'>;
  /** e.g. the commit id an `apply` came from. */
  sourceRef?: string | null;
  restoredFrom?: number | null;
}

/** A change made through a request: from the console or the API (`rampart apply` passes `code` itself). */
export function originOf(ctx: { via?: 'api' | 'console' }): VersionOrigin {
  return { source: ctx.via ?? 'api' };
}

/**
 * Appends the agent's next version if the agent (with its triggers' settings) differs from its
 * latest version, and sets `agents.version` to it, in the caller's transaction (the one that
 * changed the agent). Returns the new version, or null when nothing changed. The agent's row is
 * locked first so that two writers (an agent edit and a trigger edit) cannot take the same number.
 */
export async function appendAgentVersion(
  tx: Queryable,
  organizationId: string,
  agentId: string,
  actor: AnyActor,
  origin: VersionOrigin,
  triggers: TriggerSettingsSql,
): Promise<number | null> {
  await tx.selectFrom('agents').select('id').where('organizationId', '=', organizationId).where('id', '=', agentId).forUpdate().execute();
  const user = actor.type === 'user' ? actor : null;
  const { rows } = await sql<{ version: number }>`
    WITH last AS (
      SELECT version, snapshot FROM agent_versions WHERE agent_id = ${agentId} ORDER BY version DESC LIMIT 1
    ), next AS (
      SELECT ${agentSnapshotSql(organizationId, agentId)} || jsonb_build_object('triggers', ${triggers(organizationId, agentId)}) AS snapshot
    ), ins AS (
      INSERT INTO agent_versions (organization_id, agent_id, version, snapshot, source, source_ref, restored_from, actor_type, actor_user_id, actor_api_key_id)
      SELECT ${organizationId}, ${agentId}, coalesce((SELECT version FROM last), 0) + 1, next.snapshot, ${origin.source}, ${origin.sourceRef ?? null},
        ${origin.restoredFrom ?? null}::int, ${actor.type}, ${user?.userId ?? null}::uuid, ${user?.apiKeyId ?? null}::uuid
      FROM next
      WHERE next.snapshot IS NOT NULL AND next.snapshot IS DISTINCT FROM (SELECT snapshot FROM last)
      RETURNING version
    )
    UPDATE agents SET version = ins.version FROM ins WHERE agents.id = ${agentId} AND agents.organization_id = ${organizationId}
    RETURNING ins.version`.execute(tx);
  return rows[0]?.version ?? null;
}

export async function listAgentVersionRows(db: Queryable, organizationId: string, agentId: string, limit: number, offset: number): Promise<{ rows: AgentVersionRow[]; total: number }> {
  const q = db.selectFrom('agentVersions').where('organizationId', '=', organizationId).where('agentId', '=', agentId);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('version', 'desc').limit(limit).offset(offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function findAgentVersionRow(db: Queryable, organizationId: string, agentId: string, version: number): Promise<AgentVersionRow | undefined> {
  return db.selectFrom('agentVersions').selectAll().where('organizationId', '=', organizationId).where('agentId', '=', agentId).where('version', '=', version).executeTakeFirst();
}

/** The agent as it was at `version` (undefined: no such version of the organization's agent). For runs and evaluations of a given version. */
export async function agentVersionSnapshot(db: Queryable, organizationId: string, agentId: string, version: number): Promise<AgentVersionSnapshot | undefined> {
  const row = await db
    .selectFrom('agentVersions')
    .select('snapshot')
    .where('organizationId', '=', organizationId)
    .where('agentId', '=', agentId)
    .where('version', '=', version)
    .executeTakeFirst();
  return row?.snapshot as AgentVersionSnapshot | undefined;
}
