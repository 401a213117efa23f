import pino from 'pino';
import { sql } from 'kysely';
import { expect } from 'vitest';
import { createGuardedClient } from '../../src/platform/outbound/index.js';
import { attemptDelivery, type DeliveryDeps } from '../../src/modules/delivery/delivery.jobs.js';
import { newEvent, queueDeliveries } from '../../src/modules/delivery/index.js';
import type { RetryPolicy } from '../../src/modules/delivery/retry.fns.js';
import { bearer, type TestContext } from './app.js';
import { issuedSigningSecrets } from './fakes/webhook-receiver.js';

/**
 * Drives deliveries the way the worker does (`attemptDelivery`, the job's body), one attempt
 * at a time, so tests read each state in between without waiting for a schedule.
 */
export function deliveryDeps(t: TestContext, over: Partial<DeliveryDeps> = {}): DeliveryDeps {
  return {
    db: t.database.db,
    secrets: t.secrets,
    http: createGuardedClient({ allowPrivateNetworks: true, retries: 0 }),
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    baseUrl: 'https://rampart.example.com',
    ...over,
  };
}

export const FAST_POLICY: RetryPolicy = { maxAttempts: 8, baseDelayMs: 30_000, maxRetryAfterMs: 3_600_000 };

export async function createDestination(t: TestContext, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: bearer(key), payload: body });
  expect(res.statusCode, res.body).toBe(200);
  const signingSecret = res.json().signingSecret as string | undefined;
  if (signingSecret) issuedSigningSecrets.add(signingSecret);
  return res.json().id as string;
}

/** Queues `data` as an event of `type` for the destinations, in one transaction (the front door). */
export async function queue(t: TestContext, organizationId: string, destinationIds: string[], type = 'agent.message', data: Record<string, unknown> = { title: 'Hello', message: 'Suspicious login from 203.0.113.7' }) {
  const event = newEvent(organizationId, type, data);
  const queued = await t.database.db.transaction().execute((tx) => queueDeliveries(tx, event, destinationIds));
  return { event, ids: queued.map((q) => q.deliveryId) };
}

/** The next attempt of a retrying delivery is due now (instead of waiting for its schedule). */
export async function makeDue(t: TestContext, deliveryId: string): Promise<void> {
  await sql`UPDATE destination_deliveries SET next_attempt_at = now() WHERE id = ${deliveryId}`.execute(t.database.db);
}

export async function jobsFor(t: TestContext, deliveryId: string): Promise<Array<{ runAt: Date; key: string | null }>> {
  const { rows } = await sql<{ runAt: Date; key: string | null }>`
    SELECT run_at, key FROM graphile_worker._private_jobs WHERE payload->>'deliveryId' = ${deliveryId} AND locked_at IS NULL`.execute(t.database.db);
  return rows;
}

export async function deliveryLog(t: TestContext, key: string, destinationId: string, query = '') {
  const res = await t.app.inject({ url: `/api/output-destinations/${destinationId}/deliveries${query}`, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { deliveries: Array<Record<string, any>>; totalCount: number };
}

export { attemptDelivery };
