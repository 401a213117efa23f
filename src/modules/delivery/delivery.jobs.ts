import { uuidv7 } from 'uuidv7';
import type { Logger } from 'pino';
import type { Database } from '../../platform/db/database.js';
import { defineJob } from '../../platform/jobs/catalog.js';
import { enqueue } from '../../platform/jobs/enqueue.js';
import type { GuardedClient } from '../../platform/outbound/index.js';
import type { SecretBox } from '../../platform/secrets.js';
import { blockSlackChannels } from '../destinations/index.js';
import { ADAPTERS, type SendOutcome, type Target } from './adapters/index.js';
import { safeError } from './adapters/http.js';
import { deliveryJob, deliveryJobKey } from './delivery.job-def.js';
import { claimDelivery, failAbandonedDelivery, recordAttempt, skipDelivery, type AttemptOutcome, type DeliveryRow } from './delivery.repo.js';
import { messageOf } from './message.fns.js';
import { DEFAULT_POLICY, nextAttemptDelay, type RetryPolicy } from './retry.fns.js';

export interface DeliveryDeps {
  db: Database;
  secrets: SecretBox;
  http: GuardedClient;
  logger: Logger;
  /** RAMPART_BASE_URL: links to runs and alerts in messages. */
  baseUrl: string;
  policy?: RetryPolicy;
  /** Per request: bounded so a hanging receiver cannot hold a worker (default 10 s). */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

interface TargetRow extends Omit<Target, 'token' | 'signingSecrets'> {
  tokenCiphertext: string | null;
  signingSecretCiphertext: string | null;
  previousSigningSecretCiphertext: string | null;
  previousSigningSecretExpiresAt: Date | null;
}

/** The destination with its secrets decrypted; the previous signing secret only while its overlap lasts. */
export function targetOf(row: TargetRow, secrets: SecretBox, now = new Date()): Target {
  const signing = [row.signingSecretCiphertext, row.previousSigningSecretExpiresAt && row.previousSigningSecretExpiresAt > now ? row.previousSigningSecretCiphertext : null];
  return {
    id: row.id,
    organizationId: row.organizationId,
    name: row.name,
    type: row.type,
    config: row.config,
    token: row.tokenCiphertext ? secrets.decrypt(row.tokenCiphertext) : null,
    signingSecrets: signing.filter((c): c is string => !!c).map((c) => secrets.decrypt(c)),
  };
}

/** Sends through the destination's adapter; an adapter that throws is a transient failure. */
export async function sendTo(target: Target, event: Parameters<typeof messageOf>[0], deps: Pick<DeliveryDeps, 'http' | 'baseUrl' | 'timeoutMs'>, progress: Record<string, unknown>): Promise<SendOutcome> {
  const adapter = ADAPTERS[target.type];
  if (!adapter) return { kind: 'permanent', status: null, excerpt: null, error: `No adapter for destination type ${target.type}` };
  try {
    return await adapter.send(target, messageOf(event, deps.baseUrl), { http: deps.http, timeoutMs: deps.timeoutMs ?? DEFAULT_TIMEOUT_MS, progress });
  } catch (err) {
    return { kind: 'transient', status: null, excerpt: null, error: safeError(err, target) };
  }
}

function eventOf(row: DeliveryRow) {
  const p = row.payload as { occurredAt?: string; data?: Record<string, unknown> };
  return { id: row.eventId, type: row.eventKind, occurredAt: p.occurredAt ?? row.createdAt.toISOString(), organizationId: row.organizationId, data: p.data ?? {} };
}

/** One attempt of a delivery: claim (the attempt is logged before the send), send, record the outcome and schedule the next attempt. */
export async function attemptDelivery(deps: DeliveryDeps, deliveryId: string): Promise<AttemptOutcome | null> {
  const policy = deps.policy ?? DEFAULT_POLICY;
  const startedAt = new Date();
  const attemptId = uuidv7();
  const claimed = await claimDelivery(deps.db, deliveryId, startedAt, attemptId);
  if (!claimed) return null; // finished, or its retry is not due (a replaced job): nothing to do
  const { row, destination } = claimed;
  if (!destination) {
    await skipDelivery(deps.db, row, 'The destination was deleted before delivery');
    return 'skipped';
  }
  const progress = row.progress ?? {};
  const roundStart = typeof progress.roundStart === 'number' ? progress.roundStart : 0;
  const attemptInRound = row.attemptCount - roundStart;
  const target = targetOf(destination, deps.secrets);
  const outcome = await sendTo(target, eventOf(row), deps, progress);
  const durationMs = Date.now() - startedAt.getTime();

  let status: AttemptOutcome;
  let nextAttemptAt: Date | null = null;
  let error = outcome.kind === 'succeeded' ? null : outcome.error;
  if (outcome.kind === 'succeeded') status = 'succeeded';
  else if (outcome.kind === 'skipped') status = 'skipped';
  else if (outcome.kind === 'permanent') status = 'failed';
  else {
    const delay = nextAttemptDelay(attemptInRound, outcome.retryAfter, policy);
    if (delay === null) {
      status = 'failed';
      error = `${outcome.error} (gave up after ${attemptInRound} attempts)`;
    } else {
      status = 'retrying';
      nextAttemptAt = new Date(Date.now() + delay);
    }
  }
  const nextProgress = outcome.progress ? { ...outcome.progress, ...(roundStart ? { roundStart } : {}) } : undefined;
  const attempt = { id: attemptId, organizationId: row.organizationId, deliveryId: row.id, outcome: status, responseStatus: outcome.status, responseExcerpt: outcome.excerpt, error, durationMs };
  const next = { nextAttemptAt, ...(nextProgress ? { progress: nextProgress } : {}) };
  if (!nextAttemptAt && !outcome.blockChannels?.length) {
    await recordAttempt(deps.db, attempt, next); // one statement: the common case, one round trip
  } else {
    await deps.db.transaction().execute(async (tx) => {
      await recordAttempt(tx, attempt, next);
      if (outcome.blockChannels?.length) await blockSlackChannels(tx, row.organizationId, row.destinationId, outcome.blockChannels, new Date());
      if (nextAttemptAt) await enqueue(tx, deliveryJob, { deliveryId: row.id }, { jobKey: deliveryJobKey(row.id), runAt: nextAttemptAt });
    });
  }
  const log = { deliveryId: row.id, destinationId: row.destinationId, type: destination.type, attempt: row.attemptCount, status, responseStatus: outcome.status, durationMs };
  if (status === 'failed') deps.logger.warn({ ...log, error }, 'delivery failed');
  else if (status === 'retrying') deps.logger.info({ ...log, error, nextAttemptAt }, 'delivery attempt failed; will retry');
  else deps.logger.debug(log, 'delivery attempt');
  return status;
}

export function createDeliveryJob(deps: DeliveryDeps) {
  return defineJob({
    ...deliveryJob,
    // A delivery's first attempt must not wait for the end of the longest running agent run.
    reservedSlots: true,
    async run(payload) {
      await attemptDelivery(deps, payload.deliveryId);
    },
    // Its worker died on every attempt: the delivery must not stay `sending` for ever.
    async onFailed({ deliveryId }, reason) {
      if (await failAbandonedDelivery(deps.db, deliveryId, `Delivery abandoned: ${reason}`)) deps.logger.warn({ deliveryId, reason }, 'delivery failed: its job failed for good');
    },
  });
}
