import type { Queryable } from '../../platform/db/database.js';
import { enqueueRun, type TriggerContextT } from '../runs/index.js';
import { createAlert, type AlertFields } from '../alerts/index.js';
import { createTriggerAlert, type TriggerFiringDeps } from '../../flows/trigger-firing.flow.js';
import type { IntakeResponseT } from './triggers.schemas.js';

export interface FiringTrigger {
  id: string;
  organizationId: string;
  agentId: string;
  source: string;
  name: string;
  routeAlerts: boolean;
}

export interface Firing {
  /** The id the trigger's own run gets if it is started (chosen first: a delivery id is claimed with it). */
  runId: string;
  mode: 'trigger' | 'cron';
  /** The signal, parsed: the alert's payload. */
  payload: unknown;
  /** The delivery's body exactly as received (UTF-8 text), kept beside the parsed payload; null for cron and bodies that are not storable text. */
  payloadRaw?: string | null;
  input: unknown;
  triggerContext: TriggerContextT | null;
  caller: { userId: string | null; apiKeyId: string | null };
  /** The alert the firing creates, or null when the trigger creates none. */
  alert: AlertFields | null;
}

/**
 * One firing of a trigger (a webhook delivery, a cron time) inside the caller's transaction: its
 * alert if it creates one, and the run that triages it. A trigger's alert is assigned to the
 * trigger's agent and its run is the triage run (the run is told the alert); with `routeAlerts`
 * the alert is routed like any other and the trigger's own run is not started. A signal counted
 * on an open alert starts nothing. `runId` is the run that really exists for this firing, or null.
 */
export async function fireTrigger(tx: Queryable, deps: TriggerFiringDeps, trigger: FiringTrigger, f: Firing): Promise<{ runId: string | null; answer: IntakeResponseT }> {
  const name = trigger.name || `${trigger.source} trigger`;
  const run = {
    organizationId: trigger.organizationId,
    agentId: trigger.agentId,
    mode: f.mode,
    input: f.input,
    actorUserId: f.caller.userId,
    actorApiKeyId: f.caller.apiKeyId,
    triggerId: trigger.id,
    triggerSource: trigger.source,
    triggerContext: f.triggerContext,
  };
  if (!f.alert) {
    await enqueueRun(tx, { ...run, id: f.runId, alert: null });
    return { runId: f.runId, answer: { executionId: f.runId } };
  }
  const routed = trigger.routeAlerts;
  const alert = {
    organizationId: trigger.organizationId,
    ...f.alert,
    source: { category: 'trigger' as const, name, triggerType: trigger.source },
    createdBy: 'trigger' as const,
    createdByUserId: f.caller.userId,
    payload: f.payload ?? null,
    payloadRaw: f.payloadRaw ?? null,
    originAgentId: trigger.agentId,
    originTriggerId: trigger.id,
    originRunId: routed ? null : f.runId,
  };
  // Routed: an alert like any other. Otherwise the trigger's run is queued by the alert's own
  // statement (told the alert), when the alert is new: the trigger firing's flow.
  const result = routed
    ? await createAlert(tx, { ...alert, triage: { kind: 'route', actorUserId: f.caller.userId } }, deps)
    : await createTriggerAlert(tx, { ...alert, triage: { kind: 'trigger', agentId: trigger.agentId, runId: f.runId, triggerName: trigger.name || trigger.source } }, run, deps);
  const existing = result.alert.triageRunId;
  if (!result.created) {
    const message = `Duplicate of ${result.alert.displayId} (dedupe key ${f.alert.dedupeKey}): counted on that alert, no new run`;
    return { runId: existing, answer: { skipped: true, message, ...(existing ? { executionId: existing } : {}) } };
  }
  if (routed) {
    if (existing) return { runId: existing, answer: { executionId: existing } };
    return { runId: null, answer: { skipped: true, message: `${result.alert.displayId} created and routed: ${result.alert.routing?.reason ?? 'left unassigned'}` } };
  }
  return { runId: f.runId, answer: { executionId: f.runId } };
}
