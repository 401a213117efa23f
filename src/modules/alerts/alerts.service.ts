import { sql } from 'kysely';
import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import type { AlertStatus, AlertSeverity } from './alerts.tables.js';
import { writeAudit } from '../../platform/audit.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/http/errors.js';
import { refusedStatusChange, timelineActor, type StatusActor } from './alerts.fns.js';
import { addTimelineEntry, findAlert, listAlerts, listTimeline, type AlertFilters } from './alerts.repo.js';
import type { AlertDto, TimelineEntryDto } from './alerts.schemas.js';
import { createAlert, startTriage, type AlertDeps } from './alerts.create.js';

import type { Queryable } from '../../platform/db/database.js';
import { findAgentRow } from '../agents/index.js';
import { runStatus } from '../runs/index.js';
import { transition } from './alerts.transition.js';

/**
 * Changes an alert's status as a person or an agent: the rules of alerts.fns.ts, the resolution
 * fields on closing (cleared on reopening), one timeline entry and an `alert.status_changed` event.
 * Throws ValidationError (field `status`) when the change is refused.
 */
export async function changeAlertStatus(
  tx: Queryable,
  deps: AlertDeps,
  orgId: string,
  idOrDisplayId: string,
  change: { status: AlertStatus; reason?: string | undefined },
  actor: StatusActor,
  runId: string | null = null,
): Promise<{ alert: AlertDto; entry: TimelineEntryDto }> {
  const alert = await findAlert(tx, orgId, idOrDisplayId, { forUpdate: true });
  if (!alert) throw new NotFoundError('Alert');
  const refused = refusedStatusChange(alert.status, change.status, actor);
  if (refused) throw ValidationError.single('status', refused, 'refused_transition');
  return transition(tx, deps, alert, change, actor, { runId });
}

/** Title, description or severity of an alert, by a person or an agent, with a timeline entry. */
export async function updateAlertFields(
  tx: Queryable,
  orgId: string,
  idOrDisplayId: string,
  change: { title?: string | undefined; description?: string | undefined; severity?: AlertSeverity | undefined; reason?: string | undefined },
  actor: StatusActor,
  runId: string | null = null,
): Promise<AlertDto> {
  const alert = await findAlert(tx, orgId, idOrDisplayId, { forUpdate: true });
  if (!alert) throw new NotFoundError('Alert');
  const set = {
    ...(change.title !== undefined ? { title: change.title } : {}),
    ...(change.description !== undefined ? { description: change.description } : {}),
    ...(change.severity !== undefined ? { severity: change.severity } : {}),
  };
  await tx.updateTable('alerts').set({ ...set, updatedAt: new Date() }).where('id', '=', alert.id).execute();
  const severityOnly = Object.keys(set).length === 1 && change.severity !== undefined;
  await addTimelineEntry(tx, {
    organizationId: orgId,
    alertId: alert.id,
    kind: severityOnly ? 'severity_changed' : 'updated',
    ...timelineActor(actor),
    runId,
    body: change.reason ?? '',
    data: severityOnly ? { from: alert.severity, to: change.severity } : { changed: Object.keys(set) },
  });
  return (await findAlert(tx, orgId, alert.id))!;
}

export async function commentOnAlert(tx: Queryable, orgId: string, idOrDisplayId: string, body: string, actor: StatusActor, runId: string | null = null) {
  const alert = await findAlert(tx, orgId, idOrDisplayId);
  if (!alert) throw new NotFoundError('Alert');
  await tx.updateTable('alerts').set({ updatedAt: new Date() }).where('id', '=', alert.id).execute();
  return addTimelineEntry(tx, {
    organizationId: orgId,
    alertId: alert.id,
    kind: 'comment',
    ...timelineActor(actor),
    runId,
    body,
  });
}


export function createAlertsService(deps: { db: Database } & AlertDeps) {
  const { db } = deps;
  const human = (ctx: RequestContext): StatusActor => ({ type: 'human', userId: ctx.actor.userId });

  return {
    list: (ctx: RequestContext, filters: AlertFilters) => listAlerts(db, ctx.actor.organizationId, filters),

    async get(ctx: RequestContext, id: string) {
      const alert = await findAlert(db, ctx.actor.organizationId, id, { withPayload: 'and raw' });
      if (!alert) throw new NotFoundError('Alert');
      const timeline = await listTimeline(db, alert.id, 50, 0);
      return { alert, timeline: timeline.entries };
    },

    async timeline(ctx: RequestContext, id: string, limit: number, offset: number) {
      const alert = await findAlert(db, ctx.actor.organizationId, id);
      if (!alert) throw new NotFoundError('Alert');
      return listTimeline(db, alert.id, limit, offset);
    },

    async create(ctx: RequestContext, body: { title: string; description?: string | undefined; severity: AlertSeverity; dedupeKey?: string | undefined; externalProvider?: string | undefined; externalRef?: string | undefined; externalUrl?: string | undefined; payload?: unknown }) {
      return db.transaction().execute(async (tx) => {
        const result = await createAlert(
          tx,
          {
            organizationId: ctx.actor.organizationId,
            title: body.title,
            description: body.description,
            severity: body.severity,
            source: { category: 'user', name: 'api' },
            createdBy: 'user',
            createdByUserId: ctx.actor.userId,
            dedupeKey: body.dedupeKey ?? null,
            externalProvider: body.externalProvider ?? null,
            externalRef: body.externalRef ?? null,
            externalUrl: body.externalUrl ?? null,
            payload: body.payload ?? null,
            triage: { kind: 'route', actorUserId: ctx.actor.userId },
          },
          deps,
        );
        await writeAudit(tx, ctx, { action: result.created ? 'alert.create' : 'alert.duplicate', resourceType: 'alert', resourceId: result.alert.id });
        return result;
      });
    },

    async patch(ctx: RequestContext, id: string, body: { title?: string | undefined; description?: string | undefined }) {
      return db.transaction().execute(async (tx) => {
        const alert = await updateAlertFields(tx, ctx.actor.organizationId, id, body, human(ctx));
        await writeAudit(tx, ctx, { action: 'alert.update', resourceType: 'alert', resourceId: alert.id, metadata: { changed: Object.keys(body) } });
        return { alert };
      });
    },

    async setSeverity(ctx: RequestContext, id: string, body: { severity: AlertSeverity; reason?: string | undefined }) {
      return db.transaction().execute(async (tx) => {
        const alert = await updateAlertFields(tx, ctx.actor.organizationId, id, body, human(ctx));
        await writeAudit(tx, ctx, { action: 'alert.severity', resourceType: 'alert', resourceId: alert.id, metadata: { severity: body.severity } });
        return { alert };
      });
    },

    async setStatus(ctx: RequestContext, id: string, body: { status: AlertStatus; reason?: string | undefined }) {
      return db.transaction().execute(async (tx) => {
        const result = await changeAlertStatus(tx, deps, ctx.actor.organizationId, id, body, human(ctx));
        await writeAudit(tx, ctx, { action: 'alert.status', resourceType: 'alert', resourceId: result.alert.id, metadata: { status: body.status } });
        return result;
      });
    },

    /** Up to 200 alerts, each in its own transaction: one refused change does not undo the others. */
    async bulkStatus(ctx: RequestContext, body: { alertIds: string[]; status: AlertStatus; reason?: string | undefined }) {
      const updated: string[] = [];
      const failed: { alertId: string; error: string }[] = [];
      for (const alertId of [...new Set(body.alertIds)]) {
        try {
          const r = await db.transaction().execute(async (tx) => {
            const result = await changeAlertStatus(tx, deps, ctx.actor.organizationId, alertId, body, human(ctx));
            await writeAudit(tx, ctx, { action: 'alert.status', resourceType: 'alert', resourceId: result.alert.id, metadata: { status: body.status, bulk: true } });
            return result;
          });
          updated.push(r.alert.id);
        } catch (err) {
          if (err instanceof NotFoundError) failed.push({ alertId, error: 'Alert not found' });
          else if (err instanceof ValidationError) failed.push({ alertId, error: err.issues[0]?.message ?? err.message });
          else throw err;
        }
      }
      return { updated, failed };
    },

    async comment(ctx: RequestContext, id: string, bodyMarkdown: string) {
      return db.transaction().execute(async (tx) => {
        const entry = await commentOnAlert(tx, ctx.actor.organizationId, id, bodyMarkdown, human(ctx));
        await writeAudit(tx, ctx, { action: 'alert.comment', resourceType: 'alert', resourceId: entry.alertId });
        return { entry };
      });
    },

    /** Assign to a response agent and start its triage run; one active triage run per alert (409). */
    async assign(ctx: RequestContext, id: string, agentId: string) {
      const orgId = ctx.actor.organizationId;
      return db.transaction().execute(async (tx) => {
        const alert = await findAlert(tx, orgId, id, { forUpdate: true });
        if (!alert) throw new NotFoundError('Alert');
        const agent = await findAgentRow(tx, orgId, agentId.toLowerCase());
        if (!agent) throw ValidationError.single('agentId', 'No such agent in this organization', 'unknown_reference');
        if (alert.triageRunId) {
          const status = await runStatus(tx, alert.triageRunId);
          if (status === 'waiting' || status === 'running') {
            throw new ConflictError(`Alert ${alert.displayId} already has a triage run in progress (${alert.triageRunId}); wait for it to end`);
          }
        }
        const runId = await startTriage(tx, { alertId: alert.id, organizationId: orgId, agentId: agent.id, actorUserId: ctx.actor.userId, cause: 'assigned' });
        await tx.updateTable('alerts').set({ routing: JSON.stringify({ outcome: 'assigned', routeId: null, routeName: null, reason: 'Assigned by a person' }) }).where('id', '=', alert.id).execute();
        await writeAudit(tx, ctx, { action: 'alert.assign', resourceType: 'alert', resourceId: alert.id, metadata: { agentId: agent.id, runId } });
        return { alert: (await findAlert(tx, orgId, alert.id))!, runId };
      });
    },

    /**
     * The alert a run triages or created (a triage run's alert first), else the alert a run's
     * signal was counted as a duplicate of (a trigger delivery deduplicated into an open alert).
     */
    async forRun(ctx: RequestContext, runId: string) {
      const orgId = ctx.actor.organizationId;
      const row = (await db
        .selectFrom('alerts')
        .select('id')
        .where('organizationId', '=', orgId)
        .where((eb) => eb.or([eb('triageRunId', '=', runId.toLowerCase()), eb('originRunId', '=', runId.toLowerCase())]))
        .orderBy(sql`triage_run_id = ${runId.toLowerCase()}`, 'desc')
        .orderBy('createdAt')
        .executeTakeFirst()) ??
        (await db
          .selectFrom('alertTimeline')
          .select('alertId as id')
          .where('organizationId', '=', orgId)
          .where('runId', '=', runId.toLowerCase())
          .orderBy('createdAt')
          .executeTakeFirst());
      if (!row) return { alert: null };
      return { alert: (await findAlert(db, orgId, row.id))! };
    },
  };
}

export type AlertsService = ReturnType<typeof createAlertsService>;
