import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import type { AlertSeverity } from './alerts.tables.js';
import type { EventBus } from '../../platform/events.js';
import { enqueueRun, type EndedRun } from '../runs/index.js';
import { httpUrlOrNull } from './alerts.fns.js';
import { addTimelineEntry, countDuplicate, findAlert, insertAlert, listTimeline, type AlertStatementEntry, type NewAlertRow } from './alerts.repo.js';
import type { AlertDto } from './alerts.schemas.js';
import { decideRoute, huntDecision, triggerDecision, type Route } from './routing.fns.js';

/** Alerts created by triage runs deeper than this are not routed automatically (a runaway chain stops). */
export const MAX_ROUTING_DEPTH = 3;

/**
 * Who triages a new alert:
 * - `route`: the ordered triage routes, else the default agent, else nobody (the API spec's "Alert triage routes");
 * - `hunt`: the hunt response agent (`huntAlertRouting`), skipping routes and default;
 * - `trigger`: the trigger's own agent, whose run (`runId`) is the triage run: already queued,
 *   or queued by the alert's own statement when the alert is created (the trigger firing's
 *   flow, src/flows/trigger-firing.flow.ts: one round trip);
 * - `none`: left unassigned.
 */
export type TriageChoice =
  | { kind: 'route'; actorUserId: string | null }
  | { kind: 'hunt' }
  | { kind: 'trigger'; agentId: string; runId: string; triggerName: string }
  | { kind: 'none' };

export interface NewAlert {
  organizationId: string;
  title: string;
  description?: string | undefined;
  severity: AlertSeverity;
  source: { category: 'trigger' | 'detection' | 'agent' | 'user' | 'hunt'; name: string; triggerType?: string | null };
  createdBy: 'trigger' | 'detection' | 'agent' | 'user' | 'hunt';
  createdByUserId?: string | null;
  dedupeKey?: string | null;
  externalProvider?: string | null;
  externalRef?: string | null;
  externalUrl?: string | null;
  /** The original signal (trigger body, detection hit), parsed. */
  payload?: unknown;
  /** A trigger delivery's body exactly as received (UTF-8 text), kept beside `payload`; null otherwise. */
  payloadRaw?: string | null;
  codeDetectionId?: string | null;
  originCodeDetectionHitId?: string | null;
  /** The log table a detection hit came from, for `logTable` route conditions. */
  logTable?: { source: string; stream: string } | null;
  originAgentId?: string | null;
  originTriggerId?: string | null;
  originRunId?: string | null;
  huntQualifiedBy?: string | null;
  triage: TriageChoice;
}

export interface AlertDeps {
  /** The service's events: `alert.created` and `alert.status_changed` are emitted here (delivery subscribes). */
  events: EventBus;
}

/** A new alert as its statement writes it: the row, the entries written with it, and the entry a duplicate gets instead. */
export interface NewAlertRecord {
  values: NewAlertRow;
  entries: AlertStatementEntry[];
  duplicateEntry: AlertStatementEntry;
}

/** The entry an open alert with the signal's dedupe key gets when it counts the signal. */
export function duplicateEntryOf(input: NewAlert): AlertStatementEntry {
  return {
    kind: 'duplicate',
    actorType: 'system',
    runId: input.originRunId ?? null,
    body: `Duplicate signal from ${input.source.name} (dedupe key ${input.dedupeKey})`,
    // The parsed payload only: the timeline goes into triage runs' input, where a raw copy would double it.
    data: { payload: input.payload ?? null },
  };
}

/** `alert.created`, in the transaction that created the alert (delivery subscribes). */
export async function alertCreated(tx: Queryable, events: EventBus, alert: AlertDto): Promise<void> {
  await events.emit(tx, 'alert.created', { id: alertCreatedEventId(alert), type: 'alert.created', occurredAt: alert.createdAt, organizationId: alert.organizationId, data: { alert } });
}

/**
 * The one way an alert comes into existence (triggers, detection hits, the `create_alert` tool,
 * the API and hunt all call it), inside the caller's transaction. A signal whose `dedupeKey`
 * matches an alert that is not closed increments that alert's `duplicateCount` and adds a
 * timeline entry instead; two identical signals at once land on one row (the partial unique
 * index `alerts_open_dedupe_idx` with ON CONFLICT). A new alert is routed to its triage agent
 * and an `alert.created` event is recorded.
 */
export async function createAlert(tx: Queryable, input: NewAlert, deps: AlertDeps): Promise<{ alert: AlertDto; created: boolean }> {
  const orgId = input.organizationId;
  // Each outcome is one statement: the alert row, its timeline entries and the alert as answered.
  // Each statement stands alone: without a transaction (webhook intake), a duplicate is one
  // round trip, and a new alert's insert still meets a concurrent identical signal (ON CONFLICT).
  if (input.dedupeKey) {
    const existing = await countDuplicate(tx, orgId, input.dedupeKey, duplicateEntryOf(input));
    if (existing) return { alert: existing, created: false };
  }
  // Only alerts created by agents can be part of a triage chain.
  const depth = input.createdBy === 'agent' ? await routingDepthOf(tx, input.originRunId ?? null) : 0;
  const id = uuidv7();
  const { values, entries, duplicateEntry } = newAlertRecord(input, { id, now: new Date(), depth });
  // Lost a race to an identical signal: the other insert's row counts it as a duplicate.
  const written = await insertAlert(tx, values, entries, duplicateEntry);
  if (!written.inserted) return { alert: written.alert, created: false };

  let alert = written.alert;
  if (input.triage.kind !== 'trigger') {
    await route(tx, id, orgId, input, depth);
    alert = (await findAlert(tx, orgId, id))!;
  }
  await alertCreated(tx, deps.events, alert);
  return { alert, created: true };
}

/** The row and timeline entries of a new alert (`depth`: its triage chain's, routingDepthOf). */
export function newAlertRecord(input: NewAlert, at: { id: string; now: Date; depth: number }): NewAlertRecord {
  const { id, now, depth } = at;
  const orgId = input.organizationId;
  const triage = input.triage;
  // A trigger's alert is born assigned: its run (queued with it) triages it.
  const triggerTriage =
    triage.kind === 'trigger'
      ? {
          assignedAgentId: triage.agentId,
          triageRunId: triage.runId,
          status: 'in_progress' as const,
          firstTriagedAt: now,
          routing: JSON.stringify({ outcome: 'trigger', routeId: null, routeName: null, reason: triggerDecision(triage.triggerName, triage.agentId).reason }),
        }
      : { assignedAgentId: null, triageRunId: null, status: 'open' as const, firstTriagedAt: null, routing: null };
  const values: NewAlertRow = {
    id,
    organizationId: orgId,
    title: input.title,
    description: input.description ?? '',
    severity: input.severity,
    sourceCategory: input.source.category,
    sourceName: input.source.name,
    triggerType: input.source.triggerType ?? null,
    createdBy: input.createdBy,
    createdByUserId: input.createdByUserId ?? null,
    codeDetectionId: input.codeDetectionId ?? null,
    originCodeDetectionHitId: input.originCodeDetectionHitId ?? null,
    originAgentId: input.originAgentId ?? null,
    originTriggerId: input.originTriggerId ?? null,
    originRunId: input.originRunId ?? null,
    externalProvider: input.externalProvider ?? null,
    externalRef: input.externalRef ?? null,
    externalUrl: httpUrlOrNull(input.externalUrl),
    // Open alerts with this key were counted on above: insertAlert links this one to the last closed one (it recurs).
    dedupeKey: input.dedupeKey ?? null,
    payload: JSON.stringify(input.payload ?? null),
    payloadRaw: input.payloadRaw ?? null,
    routingDepth: depth,
    huntQualifiedBy: input.huntQualifiedBy ?? null,
    createdAt: now,
    updatedAt: now,
    ...triggerTriage,
  };
  const created = {
    kind: 'created',
    actorType: input.createdBy === 'agent' ? ('agent' as const) : input.createdBy === 'user' ? ('human' as const) : ('system' as const),
    actorUserId: input.createdByUserId ?? null,
    actorAgentId: input.originAgentId ?? null,
    runId: input.originRunId ?? null,
    // After the display id, drawn in the statement: "RMP-42 created from …".
    body: ` created from ${input.source.name}`,
    numbered: true,
  };
  const entries: AlertStatementEntry[] =
    triage.kind === 'trigger'
      ? [created, { kind: 'triage_started', actorType: 'system' as const, actorAgentId: triage.agentId, runId: triage.runId, body: "The trigger's run triages this alert" }]
      : [created];
  return { values, entries, duplicateEntry: duplicateEntryOf(input) };
}

/**
 * An alert's `alert.created` event id is the alert's own id: one event per alert, so delivery
 * keeps one such delivery per destination and event (migration 0142), and the recovery pass
 * (alert-event-recovery.ts) can queue an event a crash lost without ever sending it twice.
 */
export function alertCreatedEventId(alert: { id: string }): string {
  return alert.id;
}

/** How many triage runs deep an alert is: one more than the alert its creating run was triaging. */
async function routingDepthOf(tx: Queryable, originRunId: string | null): Promise<number> {
  if (!originRunId) return 0;
  const parent = await tx.selectFrom('alerts').select('routingDepth').where('triageRunId', '=', originRunId).executeTakeFirst();
  return parent ? parent.routingDepth + 1 : 0;
}

async function route(tx: Queryable, alertId: string, orgId: string, input: NewAlert, depth: number): Promise<void> {
  const triage = input.triage;
  if (triage.kind === 'none' || triage.kind === 'trigger') return;
  const settings = await tx.selectFrom('alertRouting').selectAll().where('organizationId', '=', orgId).executeTakeFirst();
  if (triage.kind === 'hunt') {
    const decision = huntDecision(settings?.huntResponseAgentId ?? null);
    await recordRouting(tx, alertId, orgId, { outcome: decision.outcome, routeId: null, routeName: null, reason: decision.reason });
    if (decision.outcome === 'hunt') await startTriage(tx, { alertId, organizationId: orgId, agentId: decision.agentId, actorUserId: settings?.updatedBy ?? null, cause: 'routed' });
    return;
  }
  if (depth > MAX_ROUTING_DEPTH) {
    const reason = `Created by a triage run ${depth} hops deep (more than ${MAX_ROUTING_DEPTH}); not routed automatically to stop a runaway chain`;
    await recordRouting(tx, alertId, orgId, { outcome: 'not_routed', routeId: null, routeName: null, reason });
    return;
  }
  const code = input.codeDetectionId ?? null;
  const decision = decideRoute((settings?.routes ?? []) as Route[], settings?.defaultResponseAgentId ?? null, {
    severity: input.severity,
    codeDetectionId: code,
    logTable: input.logTable ?? null,
    sources: [input.source.category, ...(input.source.triggerType ? [input.source.triggerType] : [])],
  });
  await recordRouting(tx, alertId, orgId, {
    outcome: decision.outcome,
    routeId: decision.outcome === 'route' ? decision.routeId : null,
    routeName: decision.outcome === 'route' ? decision.routeName : null,
    reason: decision.reason,
  });
  if (decision.outcome !== 'unassigned') {
    // Routed runs act as the user who last saved the routing (they chose this agent), else the alert's creator.
    await startTriage(tx, { alertId, organizationId: orgId, agentId: decision.agentId, actorUserId: settings?.updatedBy ?? triage.actorUserId, cause: 'routed' });
  }
}

async function recordRouting(tx: Queryable, alertId: string, orgId: string, routing: { outcome: string; routeId: string | null; routeName: string | null; reason: string }) {
  await tx.updateTable('alerts').set({ routing: JSON.stringify(routing) }).where('id', '=', alertId).execute();
  await addTimelineEntry(tx, { organizationId: orgId, alertId, kind: routing.outcome === 'unassigned' || routing.outcome === 'not_routed' ? 'not_routed' : 'routed', actorType: 'system', body: routing.reason, data: routing });
}

/**
 * Queue a triage run of `agentId` for the alert: its input is the alert with its payload and
 * timeline. The alert moves to `in_progress` (if it was open) and records the run.
 */
export async function startTriage(tx: Queryable, t: { alertId: string; organizationId: string; agentId: string; actorUserId: string | null; cause: 'routed' | 'assigned' }): Promise<string> {
  const alert = (await findAlert(tx, t.organizationId, t.alertId, { withPayload: true }))!;
  const timeline = await listTimeline(tx, t.alertId, 50, 0);
  const runId = uuidv7();
  await enqueueRun(tx, {
    id: runId,
    organizationId: t.organizationId,
    agentId: t.agentId,
    mode: 'triage',
    input: {
      task: `Triage alert ${alert.displayId}. Use get_alert, comment_on_alert, update_alert and set_alert_status (alertId "${alert.id}") to record what you find and conclude.`,
      alert,
      timeline: timeline.entries,
    },
    actorUserId: t.actorUserId,
    alert: { id: alert.id, displayId: alert.displayId },
  });
  await tx
    .updateTable('alerts')
    .set((eb) => ({
      assignedAgentId: t.agentId,
      triageRunId: runId,
      status: sql`CASE WHEN status = 'open' THEN 'in_progress' ELSE status END`,
      firstTriagedAt: eb.fn.coalesce('firstTriagedAt', sql<Date>`now()`),
      updatedAt: new Date(),
    }))
    .where('id', '=', t.alertId)
    .execute();
  await addTimelineEntry(tx, { organizationId: t.organizationId, alertId: t.alertId, kind: 'triage_started', actorType: 'system', actorAgentId: t.agentId, runId, body: `Triage run queued (${t.cause})` });
  return runId;
}



/**
 * A triage run ended: its outcome (status and the agent's final message) lands on the alert's
 * timeline, and the alert (its status is the run's verdict) is given to the run's output event.
 * Wired into the run job at the composition root (runs must not import alerts).
 */
export async function noteTriageRunEnded(tx: Queryable, run: EndedRun): Promise<{ alert: AlertDto } | void> {
  const row = await tx.selectFrom('alerts').select(['id', 'organizationId']).where('triageRunId', '=', run.runId).where('organizationId', '=', run.organizationId).executeTakeFirst();
  if (!row) return;
  const message = run.status === 'done' ? run.finalAssistantMessage : `The triage run ended in ${run.status}${run.statusMessage ? `: ${run.statusMessage}` : ''}`;
  await addTimelineEntry(tx, {
    organizationId: row.organizationId,
    alertId: row.id,
    kind: 'triage_finished',
    actorType: 'agent',
    actorAgentId: run.agentId,
    runId: run.runId,
    body: message.slice(0, 20_000),
    data: { status: run.status, agentName: run.agentName },
  });
  await tx.updateTable('alerts').set({ updatedAt: new Date() }).where('id', '=', row.id).execute();
  // The run's output event names the alert as the run left it: its status is the verdict.
  return { alert: (await findAlert(tx, row.organizationId, row.id))! };
}
