import type { Database, Queryable } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import { writeAudit } from '../../platform/audit.js';
import { ConflictError, NotFoundError } from '../../platform/http/errors.js';
import { enqueue } from '../../platform/jobs/enqueue.js';
import type { GuardedClient } from '../../platform/outbound/index.js';
import type { SecretBox } from '../../platform/secrets.js';
import { redactSecrets } from '../../platform/outbound/url-secrets.js';
import { iso } from '../../platform/time.js';
import { findDestinationRow, type DestinationHealth } from '../destinations/index.js';
import { deliveryJob, deliveryJobKey } from './delivery.job-def.js';
import { sendTo, targetOf } from './delivery.jobs.js';
import { newEvent } from './delivery.queue.js';
import { attemptsOf, findDelivery, hasDeliveries, latestAttempts, listDeliveryRows, resetForRedelivery, type DeliveryRow } from './delivery.repo.js';

const isoOrNull = (d: Date | null) => (d ? iso(d) : null);

/** How far back a destination's health looks for its last success. */
const HEALTH_WINDOW = 500;

/** Delivery's answer to destinations' `destinationHealth` question (the delivery manifest's `readers`). */
export async function destinationHealth(q: Queryable, organizationId: string, destinationId: string): Promise<DestinationHealth> {
    const rows = await latestAttempts(q, organizationId, destinationId, HEALTH_WINDOW);
    let consecutiveFailures = 0;
    for (const r of rows) {
      if (r.outcome !== 'retrying' && r.outcome !== 'failed') break;
      consecutiveFailures++;
    }
    const last = rows[0];
    return {
      lastDeliveryStatus: (last?.outcome ?? null) as DestinationHealth['lastDeliveryStatus'],
      lastDeliveryAt: last ? iso(last.startedAt) : null,
      lastError: consecutiveFailures > 0 ? redactSecrets(last?.error ?? null) : null,
      consecutiveFailures,
    };
}

export function createDeliveryService(deps: { db: Database; secrets: SecretBox; http: GuardedClient; baseUrl: string }) {
  const { db } = deps;

  /** A destination's log is readable while it exists, and after it is deleted while rows remain. */
  async function mustHaveLog(organizationId: string, destinationId: string): Promise<void> {
    if (await findDestinationRow(db, organizationId, destinationId)) return;
    if (await hasDeliveries(db, organizationId, destinationId)) return;
    throw new NotFoundError('Output destination');
  }

  async function toDtos(organizationId: string, rows: DeliveryRow[]) {
    const attempts = await attemptsOf(db, organizationId, rows.map((r) => r.id));
    const byDelivery = new Map<string, typeof attempts>();
    for (const a of attempts) (byDelivery.get(a.deliveryId) ?? byDelivery.set(a.deliveryId, []).get(a.deliveryId)!).push(a);
    return rows.map((r) => ({
      id: r.id,
      destinationId: r.destinationId,
      destinationName: r.destinationName,
      destinationType: r.destinationType,
      eventKind: r.eventKind,
      eventId: r.eventId,
      status: r.status as 'pending',
      attemptCount: r.attemptCount,
      responseStatus: r.responseStatus,
      // Receiver text is redacted when read as well as when stored: rows written before a rule existed stay safe.
      responseExcerpt: redactSecrets(r.responseExcerpt),
      error: redactSecrets(r.error),
      nextAttemptAt: isoOrNull(r.nextAttemptAt),
      firstAttemptAt: isoOrNull(r.firstAttemptAt),
      lastAttemptAt: isoOrNull(r.lastAttemptAt),
      finishedAt: isoOrNull(r.finishedAt),
      createdAt: iso(r.createdAt),
      updatedAt: iso(r.updatedAt),
      attempts: (byDelivery.get(r.id) ?? []).map((a) => ({
        attempt: a.attempt,
        outcome: a.outcome as 'succeeded',
        responseStatus: a.responseStatus,
        responseExcerpt: redactSecrets(a.responseExcerpt),
        error: redactSecrets(a.error),
        startedAt: iso(a.startedAt),
        durationMs: a.durationMs,
      })),
    }));
  }

  return {
    async list(ctx: RequestContext, destinationId: string, q: { limit: number; offset: number; status?: string[] | undefined }) {
      await mustHaveLog(ctx.actor.organizationId, destinationId);
      const { rows, totalCount } = await listDeliveryRows(db, ctx.actor.organizationId, destinationId, q.limit, q.offset, q.status);
      return { deliveries: await toDtos(ctx.actor.organizationId, rows), totalCount };
    },

    /** Sends the same event again (same idempotency id) with a fresh retry budget. */
    async redeliver(ctx: RequestContext, destinationId: string, deliveryId: string) {
      const org = ctx.actor.organizationId;
      const row = await db.transaction().execute(async (tx) => {
        const found = await findDelivery(tx, org, destinationId, deliveryId, true);
        if (!found) throw new NotFoundError('Delivery');
        if (!(await findDestinationRow(tx, org, destinationId))) throw new ConflictError('The destination of this delivery was deleted; it cannot be redelivered');
        if (found.status === 'pending' || found.status === 'sending') throw new ConflictError(`The delivery is already ${found.status}`);
        await resetForRedelivery(tx, found);
        await enqueue(tx, deliveryJob, { deliveryId }, { jobKey: deliveryJobKey(deliveryId) });
        await writeAudit(tx, ctx, { action: 'destination.redeliver', resourceType: 'destination', resourceId: destinationId, metadata: { deliveryId, previousStatus: found.status } });
        return (await findDelivery(tx, org, destinationId, deliveryId))!;
      });
      return (await toDtos(org, [row]))[0]!;
    },

    /** Sends a sample message now (not queued, not logged as a delivery) and reports the answer. */
    async test(ctx: RequestContext, destinationId: string) {
      const destination = await findDestinationRow(db, ctx.actor.organizationId, destinationId);
      if (!destination) throw new NotFoundError('Output destination');
      const event = newEvent(ctx.actor.organizationId, 'destination.test', {
        title: 'Rampart test message',
        message: `This is a test message from Rampart to the destination "${destination.name}". If you can read it, delivery works.`,
        severity: 'info',
        destinationId,
      });
      const outcome = await sendTo(targetOf(destination, deps.secrets), event, deps, {});
      await writeAudit(db, ctx, { action: 'destination.test', resourceType: 'destination', resourceId: destinationId, metadata: { ok: outcome.kind === 'succeeded', status: outcome.status } });
      const said = outcome.excerpt ? `: ${outcome.excerpt}` : '';
      if (outcome.kind === 'succeeded') return { ok: true, status: outcome.status, message: `${outcome.message ?? 'Delivered'}${said}` };
      return { ok: false, status: outcome.status, message: `${outcome.error}${said}` };
    },
  };
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
