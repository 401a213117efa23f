import { isUtf8 } from 'node:buffer';
import { uuidv7 } from 'uuidv7';
import type { Database } from '../../platform/db/database.js';
import type { Authenticator } from '../../platform/auth/authenticator.js';
import { hasPermission } from '../../platform/auth/actor.js';
import { parseApiKey } from '../../platform/auth/api-keys.js';
import type { SecretBox } from '../../platform/secrets.js';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../../platform/http/errors.js';
import { alertFieldsFromPayload, createsAlertByDefault, type AlertDeps, type AlertFields } from '../alerts/index.js';
import type { TriggerAlertGroup, TriggerFiringDeps } from '../../flows/trigger-firing.flow.js';
import { fireTrigger } from './trigger-alert.js';
import { deliveryIdOf, mappedInput, slackDecision, triggerContextOf } from './intake.fns.js';
import { secretsEqual } from '../../platform/auth/secrets-equal.js';
import { header, verifySenderSignature, type Headers, type WebhookSource } from './signatures.fns.js';
import { claimDelivery, findTriggerForIntake, markAttempted, setDeliveryRun, type IntakeTrigger } from './triggers.repo.js';
import type { IntakeTriggerCache } from './intake-cache.js';
import type { IntakeResponseT } from './triggers.schemas.js';

/** The header a sender that can set headers but not `Authorization` puts the trigger secret in. */
export const SECRET_HEADER = 'x-rampart-secret';

const ATTEMPT_WRITE_INTERVAL_MS = 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface IntakeRequest {
  source: WebhookSource;
  triggerId: string;
  headers: Headers;
  rawBody: Buffer;
  body: unknown;
}

interface Caller {
  userId: string | null;
  apiKeyId: string | null;
}

/**
 * Incoming webhook → at most one queued agent run. The request does only this: find the
 * trigger, authenticate the sender, claim the delivery id, queue the run, all in one short
 * transaction; the agent itself runs in a worker.
 */
export function createIntakeService(deps: { db: Database; secrets: SecretBox; authenticator: Authenticator; cache: IntakeTriggerCache; group: TriggerAlertGroup; now?: () => number } & AlertDeps) {
  const { db, secrets, authenticator, cache } = deps;
  const clock = deps.now ?? Date.now;
  // The one-statement path's alerts are group-committed (intake-group.ts).
  const grouped: TriggerFiringDeps = { events: deps.events, grouped: deps.group };

  /** One answer for unknown, draft, foreign and mismatched triggers: nothing to learn from it. */
  const notFound = () => new NotFoundError('Trigger');

  async function authenticate(trigger: IntakeTrigger, req: IntakeRequest): Promise<Caller> {
    const authorization = header(req.headers, 'authorization');
    const bearer = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
    // Authenticated by the trigger itself: the run acts as whoever last changed the trigger or its agent.
    const fallbackCaller: Caller = { userId: trigger.runAs, apiKeyId: null };

    if (bearer && parseApiKey(bearer)) {
      const actor = await authenticator.authenticate(authorization);
      // A key of another organization learns nothing about this trigger.
      if (actor.organizationId !== trigger.organizationId) throw notFound();
      if (!hasPermission(actor, 'agent.execute')) throw new ForbiddenError(['agent.execute']);
      return { userId: actor.userId, apiKeyId: actor.apiKeyId };
    }

    const secret = trigger.secretCiphertext ? secrets.decrypt(trigger.secretCiphertext) : null;
    const presented = bearer ?? header(req.headers, SECRET_HEADER);
    if (presented !== undefined) {
      if (secret !== null && secretsEqual(presented, secret)) return fallbackCaller;
      throw new UnauthorizedError('Invalid credentials');
    }

    const key = trigger.signingSecretCiphertext ? secrets.decrypt(trigger.signingSecretCiphertext) : secret;
    const verdict = key ? verifySenderSignature(req.source, { headers: req.headers, rawBody: req.rawBody, body: req.body, now: clock() }, key) : null;
    if (verdict?.ok) return fallbackCaller;
    if (verdict?.reason === 'stale') throw new UnauthorizedError('Stale timestamp: the request was signed more than 5 minutes away from now');
    if (verdict) throw new UnauthorizedError('Signature mismatch');
    throw new UnauthorizedError(
      'Missing credentials: send "Authorization: Bearer <trigger secret or API key>", the trigger secret in X-Rampart-Secret, or the sender\'s signature',
    );
  }

  /**
   * `last_run_attempted_at`, written after the run's transaction and at most once a second per
   * trigger and process: updating the trigger row inside every delivery's transaction made all
   * deliveries of one trigger queue on that row's lock (measured: p50 ~470 ms at 200 req/s).
   */
  const lastNoted = new Map<string, number>();
  async function noteAttempt(triggerId: string): Promise<void> {
    const now = clock();
    if ((lastNoted.get(triggerId) ?? 0) > now - ATTEMPT_WRITE_INTERVAL_MS) return;
    if (lastNoted.size >= 10_000) lastNoted.clear();
    lastNoted.set(triggerId, now);
    await markAttempted(db, triggerId, new Date(now)).catch(() => {});
  }

  /**
   * Whether the firing runs without BEGIN and COMMIT: each of its statements stands alone (a
   * single statement is its own transaction). So when no delivery id is claimed, the alert is not
   * routed, and no subscriber of `alert.created` would act for the organization (delivery: no
   * destination subscribed, from its cache); a destination subscribed by another process in the
   * milliseconds between this check and the event still gets it, in a transaction of its own.
   * The alert, its timeline, the run and its job are then one statement — shared with concurrent
   * deliveries (group commit, `deps.group`) when the alert has no dedupe key; with one, the
   * count on the open alert comes first (a duplicate is one round trip, a new alert two).
   */
  async function withoutTransaction(trigger: IntakeTrigger, claimsDelivery: boolean, alert: AlertFields | null): Promise<boolean> {
    if (claimsDelivery) return false;
    if (!alert) return true;
    return !trigger.routeAlerts && !(await deps.events.acts(db, 'alert.created', trigger.organizationId));
  }

  /** The saved trigger of the request's source, and who the request authenticates as; 404 and 401 otherwise. */
  async function authorize(req: IntakeRequest): Promise<{ trigger: IntakeTrigger; caller: Caller }> {
    if (!UUID.test(req.triggerId)) throw notFound();
    const triggerId = req.triggerId.toLowerCase();
    const trigger = await cache.get(triggerId, () => findTriggerForIntake(db, triggerId));
    if (!trigger || trigger.status !== 'active' || trigger.source !== req.source) throw notFound();
    return { trigger, caller: await authenticate(trigger, req) };
  }

  return {
    authorize,

    async invoke(req: IntakeRequest): Promise<IntakeResponseT> {
      const { trigger, caller } = await authorize(req);

      if (req.source === 'slack') {
        const decision = slackDecision(req.body);
        // The URL handshake works while the trigger is disabled: setting Slack up needs it.
        if (decision.kind === 'challenge') return { challenge: decision.challenge };
        if (decision.kind === 'ignore' && trigger.enabled) return { skipped: true, message: decision.message };
      }
      if (!trigger.enabled) return { skipped: true, message: 'Trigger is disabled' };

      const delivery = deliveryIdOf(req.source, req.headers, req.body, trigger.deliveryIdPointer);
      const triggerContext = triggerContextOf(req.source, req.headers, delivery, new Date(clock()));
      const createsAlert = trigger.createAlert ?? createsAlertByDefault(trigger.source);
      const alert = createsAlert ? alertFieldsFromPayload(trigger.source, req.body, trigger.alertMapping, trigger.name) : null;
      // The run id is chosen first so the delivery is claimed with it: one statement fewer.
      // The body as received goes with the alert only (the run's input is the parsed payload).
      const firing = { runId: uuidv7(), mode: 'trigger' as const, payload: req.body, payloadRaw: alert ? receivedText(req.rawBody) : null, input: mappedInput(req.body ?? null, trigger.inputMapping), triggerContext, caller, alert };
      const answer: IntakeResponseT = (await withoutTransaction(trigger, delivery !== null, alert))
        ? (await fireTrigger(db, grouped, trigger, firing)).answer
        : await db.transaction().execute(async (tx) => {
            if (delivery) {
              const original = await claimDelivery(tx, trigger.id, delivery.key, firing.runId);
              // The run the first delivery really started, never an id that names no run.
              if (original) return { skipped: true as const, message: `Duplicate delivery: already received${original.runId ? '' : ' (it started no run)'}`, ...(original.runId ? { executionId: original.runId } : {}) };
            }
            const fired = await fireTrigger(tx, deps, trigger, firing);
            // Counted on an open alert, or routed: the delivery id remembers the run that exists (or none).
            if (delivery && fired.runId !== firing.runId) await setDeliveryRun(tx, trigger.id, delivery.key, fired.runId);
            return fired.answer;
          });
      if ('executionId' in answer && !('skipped' in answer)) await noteAttempt(trigger.id);
      return answer;
    },
  };
}

export type IntakeService = ReturnType<typeof createIntakeService>;

/**
 * A delivery's body as text PostgreSQL can store exactly, or null: valid UTF-8 (JSON is UTF-8,
 * RFC 8259 §8.1; a form is ASCII) without NUL (which text cannot hold and JSON forbids
 * unescaped). Kept byte for byte: key order, spacing and duplicate keys as the sender sent them.
 */
function receivedText(raw: Buffer): string | null {
  if (raw.length === 0 || raw.includes(0) || !isUtf8(raw)) return null;
  return raw.toString('utf8');
}
