import { uuidv7 } from 'uuidv7';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import { hasPermission } from '../../platform/auth/actor.js';
import { writeAudit } from '../../platform/audit.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/http/errors.js';
import { assessThreats, insertEvents } from './assess.service.js';
import { canMove, type Lifecycle } from './deliverables.store.js';
import type { EventBus } from '../../platform/events.js';
import { OPEN_ALERT_STATUSES, huntDedupeKey, type AlertSettings } from './hunt-alerts.js';
import { huntAlertsOf } from './hunt-alerts.adapter.js';
import { readAlertSettings, writeAlertSettings } from './settings.repo.js';
import { deliverableDto, deliverablesOf, eventsOf, findThreatRow, itemSummariesOf, latestMatchesOf, listThreatRows, runsOf, threatDto } from './threats.repo.js';

/**
 * Threat views and actions. The full view (GET, dismiss, restore, reassess) is the body of the API spec's "Hunt" endpoints (docs/hunt.md):
 * `{threat, matches, runs, deliverables, intelItems, alerts, activeHuntAlert, latestAlert,
 * activityEvents, capabilities}`. Dismissal is explicit state beside the derived status:
 * dismiss sets it (409 if already dismissed), restore clears it (409 if not dismissed) and the
 * threat is back to its derived status; runs continue either way.
 */
export function createThreatsService(deps: { db: Database; events: EventBus }) {
  const { db, events } = deps;

  async function view(ctx: RequestContext, id: string, q: Queryable = db) {
    const row = await findThreatRow(q, ctx.actor.organizationId, id);
    if (!row) throw new NotFoundError('Threat');
    const [runs, deliverables, intelItems, activityEvents, alertList, matches] = await Promise.all([
      runsOf(q, id),
      deliverablesOf(q, id),
      itemSummariesOf(q, id),
      eventsOf(q, id),
      // A threat's alerts only for callers who may read alerts: hunt.read is not alert.read.
      hasPermission(ctx.actor, 'alert.read') ? huntAlertsOf(q, ctx.actor.organizationId, huntDedupeKey(id)) : Promise.resolve([]),
      latestMatchesOf(q, row.latestRunId),
    ]);
    const latestAlert = alertList.find((a) => a.id === row.latestAlertId) ?? alertList[0] ?? null;
    const activeHuntAlert = alertList.find((a) => a.id === row.activeHuntAlertId && OPEN_ALERT_STATUSES.includes(a.status)) ?? null;
    return {
      threat: threatDto(row),
      matches: matches as never,
      runs,
      deliverables,
      intelItems,
      alerts: alertList,
      activeHuntAlert,
      latestAlert,
      activityEvents,
      capabilities: {
        canReadEvidence: hasPermission(ctx.actor, 'hunt.read'),
        canReassess: hasPermission(ctx.actor, 'hunt.manage'),
        canTriage: hasPermission(ctx.actor, 'alert.triage'),
      },
    };
  }

  async function lockThreat(tx: Queryable, organizationId: string, id: string) {
    const t = await tx.selectFrom('huntThreats').select(['id', 'canonicalKey', 'dismissedAt']).where('organizationId', '=', organizationId).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!t) throw new NotFoundError('Threat');
    return t;
  }

  function event(ctx: RequestContext, threatId: string, canonicalKey: string, kind: string, label: string) {
    return { id: uuidv7(), organization_id: ctx.actor.organizationId, threat_id: threatId, run_id: null, kind, actor_type: 'user', metadata: { score: 0, hunting: false, canonicalKey, label, userId: ctx.actor.userId }, created_at: new Date().toISOString() };
  }

  return {
    view,

    async list(ctx: RequestContext, q: { limit: number; offset: number; status?: string; minRelevancy?: number; minEpss?: number; exposureState?: string; search?: string; knownExploited?: boolean }) {
      const { rows, totalCount } = await listThreatRows(db, ctx.actor.organizationId, q);
      return { threats: rows.map(threatDto), totalCount };
    },

    async dismiss(ctx: RequestContext, id: string, reason: string) {
      await db.transaction().execute(async (tx) => {
        const t = await lockThreat(tx, ctx.actor.organizationId, id);
        if (t.dismissedAt) throw new ConflictError('Threat is already dismissed');
        await tx.updateTable('huntThreats').set({ dismissedAt: new Date(), dismissedByUserId: ctx.actor.userId, dismissedReason: reason, updatedAt: new Date() }).where('id', '=', id).execute();
        await insertEvents(tx, [event(ctx, id, t.canonicalKey, 'threat_dismissed', reason)]);
        await writeAudit(tx, ctx, { action: 'threat.dismiss', resourceType: 'threat', resourceId: id, metadata: { reason } });
      });
      return view(ctx, id);
    },

    async restore(ctx: RequestContext, id: string) {
      await db.transaction().execute(async (tx) => {
        const t = await lockThreat(tx, ctx.actor.organizationId, id);
        if (!t.dismissedAt) throw new ConflictError('Threat is not dismissed');
        await tx.updateTable('huntThreats').set({ dismissedAt: null, dismissedByUserId: null, dismissedReason: null, updatedAt: new Date() }).where('id', '=', id).execute();
        await insertEvents(tx, [event(ctx, id, t.canonicalKey, 'threat_restored', 'dismissal cleared')]);
        await writeAudit(tx, ctx, { action: 'threat.restore', resourceType: 'threat', resourceId: id });
      });
      return view(ctx, id);
    },

    /** A manual reassessment runs now (it is deterministic and takes milliseconds) and answers the new view. */
    async reassess(ctx: RequestContext, id: string) {
      const row = await findThreatRow(db, ctx.actor.organizationId, id);
      if (!row) throw new NotFoundError('Threat');
      await assessThreats(db, ctx.actor.organizationId, [id], { kind: 'reassess', trigger: 'manual', events, actorUserId: ctx.actor.userId });
      await writeAudit(db, ctx, { action: 'threat.reassess', resourceType: 'threat', resourceId: id });
      return view(ctx, id);
    },

    async updateDeliverable(ctx: RequestContext, id: string, deliverableId: string, input: { lifecycleStatus: Lifecycle; pullRequestUrl?: string | null }) {
      return db.transaction().execute(async (tx) => {
        const t = await lockThreat(tx, ctx.actor.organizationId, id);
        const d = await tx.selectFrom('huntDeliverables').selectAll().where('organizationId', '=', ctx.actor.organizationId).where('threatId', '=', id).where('id', '=', deliverableId).executeTakeFirst();
        if (!d) throw new NotFoundError('Deliverable');
        if (d.lifecycleStatus !== input.lifecycleStatus && !canMove(d.lifecycleStatus, input.lifecycleStatus)) {
          throw ValidationError.single('lifecycleStatus', `cannot move from ${d.lifecycleStatus} to ${input.lifecycleStatus}`, 'invalid_transition');
        }
        const next = { ...d, lifecycleStatus: input.lifecycleStatus, pullRequestUrl: input.pullRequestUrl === undefined ? d.pullRequestUrl : input.pullRequestUrl, updatedAt: new Date() };
        await tx.updateTable('huntDeliverables').set({ lifecycleStatus: next.lifecycleStatus, pullRequestUrl: next.pullRequestUrl, updatedAt: next.updatedAt }).where('id', '=', deliverableId).execute();
        await insertEvents(tx, [event(ctx, id, t.canonicalKey, 'deliverable_updated', `${d.lifecycleStatus} → ${input.lifecycleStatus}`)]);
        await writeAudit(tx, ctx, { action: 'threat.deliverable.update', resourceType: 'deliverable', resourceId: deliverableId, metadata: { from: d.lifecycleStatus, to: input.lifecycleStatus } });
        return deliverableDto(next);
      });
    },

    getSettings: (ctx: RequestContext) => readAlertSettings(db, ctx.actor.organizationId),

    async putSettings(ctx: RequestContext, input: AlertSettings): Promise<AlertSettings> {
      await db.transaction().execute(async (tx) => {
        await writeAlertSettings(tx, ctx.actor.organizationId, input);
        await writeAudit(tx, ctx, { action: 'hunt.alert_settings.update', resourceType: 'hunt_settings', resourceId: null, metadata: { ...input } });
      });
      return { minimumExposureBand: input.minimumExposureBand, alertOnCompromiseBelowThreshold: input.alertOnCompromiseBelowThreshold, minimumEpssProbability: input.minimumEpssProbability, minimumEpssPercentile: input.minimumEpssPercentile, alertOnKnownExploited: input.alertOnKnownExploited };
    },
  };
}

export type ThreatsService = ReturnType<typeof createThreatsService>;
