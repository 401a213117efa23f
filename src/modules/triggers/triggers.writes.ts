import { randomBytes } from 'node:crypto';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { WriteOptions } from '../../platform/managed.js';
import type { RequestContext } from '../../platform/context.js';
import type { SecretBox } from '../../platform/secrets.js';
import { NotFoundError } from '../../platform/http/errors.js';
import { appendAgentVersion, findAgentRow, originOf } from '../agents/index.js';
import type { IntakeTriggerCache } from './intake-cache.js';
import { findTriggerRow, triggerSettingsSql, type TriggerRow } from './triggers.repo.js';

/**
 * What every trigger command is built from, and the steps each write shares: the cached copy
 * intake holds goes, the agent's next version records the change, the agent and the trigger are
 * found in the caller's organization. The commands live one per file (triggers.save.ts,
 * triggers.update.ts, triggers.put.ts); createTriggersService (triggers.service.ts) assembles them.
 */
export interface TriggerCommandDeps {
  db: Database;
  secrets: SecretBox;
  /** RAMPART_BASE_URL: a webhook trigger's URL is answered with it. */
  baseUrl: string;
  /** Intake's trigger cache (API-role state): every write drops its copy of the trigger. */
  cache: IntakeTriggerCache;
}

/**
 * A new trigger secret: 32 random bytes in the Standard Webhooks form (`whsec_<base64>`), so the
 * same value works as a bearer token, as an HMAC key for senders that sign with a shared string
 * (GitHub style, Jira) and as a Standard Webhooks signing key.
 */
export function newTriggerSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Every write: intake's cached copy of the trigger goes when the transaction ends (intake-cache.ts). */
export function invalidateTrigger(deps: Pick<TriggerCommandDeps, 'cache'>, tx: Queryable, triggerId: string): Promise<void> {
  return deps.cache.invalidate(tx, triggerId.toLowerCase());
}

/**
 * A trigger change is a change of its agent: the agent's next version records the triggers'
 * settings (agents' appendAgentVersion), from code when config apply made it.
 */
export async function versionTriggerAgent(tx: Queryable, ctx: RequestContext, agentId: string, opts?: WriteOptions): Promise<void> {
  await appendAgentVersion(tx, ctx.actor.organizationId, agentId, ctx.actor, opts?.managed ? { source: 'code', sourceRef: opts.managed.source } : originOf(ctx), triggerSettingsSql);
}

/** 404 unless the agent exists in the caller's organization. */
export async function requireAgent(q: Queryable, ctx: RequestContext, agentId: string): Promise<void> {
  if (!(await findAgentRow(q, ctx.actor.organizationId, agentId))) throw new NotFoundError('Agent');
}

/** The agent's active (not draft) trigger, locked for the write; 404 otherwise. */
export async function findActiveTrigger(tx: Queryable, ctx: RequestContext, agentId: string, triggerId: string): Promise<TriggerRow> {
  const row = await findTriggerRow(tx, ctx.actor.organizationId, agentId, triggerId, true);
  if (!row || row.status !== 'active') throw new NotFoundError('Trigger');
  return row;
}
