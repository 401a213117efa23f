import { uuidv7 } from 'uuidv7';
import type { Queryable } from './db/database.js';
import type { AnyActor } from './auth/actor.js';

/**
 * Every mutation writes one audit entry in the same transaction as the change: who (user and
 * key, or the system/CLI), what (action, resource), when, and the request id. `metadata` holds
 * non-secret details only: callers pass field names that changed, never secret values.
 */
export interface AuditEntry {
  action: string;
  resourceType: string;
  resourceId?: string | null;
  metadata?: Record<string, unknown>;
}

export interface AuditContext {
  actor: AnyActor;
  requestId?: string | null;
}

export async function writeAudit(db: Queryable, ctx: AuditContext, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('auditLogs')
    .values({
      id: uuidv7(),
      organizationId: ctx.actor.organizationId,
      actorType: ctx.actor.type,
      actorUserId: ctx.actor.type === 'user' ? ctx.actor.userId : null,
      actorApiKeyId: ctx.actor.type === 'user' ? ctx.actor.apiKeyId : null,
      action: entry.action,
      resourceType: entry.resourceType,
      resourceId: entry.resourceId ?? null,
      requestId: ctx.requestId ?? null,
      metadata: JSON.stringify(entry.metadata ?? {}),
    })
    .execute();
}
