import { uuidv7 } from 'uuidv7';
import { withTransaction } from '../../platform/cache/transaction.js';
import { assertEditable, managedColumns, type WriteOptions } from '../../platform/managed.js';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import { writeAudit } from '../../platform/audit.js';
import { ValidationError, type ValidationIssue } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { ALERT_SEVERITIES } from './alerts.fns.js';
import { decideRoute, findRoutingLoops, huntDecision, triggerDecision, type Route, type RoutingDecision } from './routing.fns.js';
import { MAX_ROUTES } from './routing.schemas.js';
import type { z } from 'zod';
import type { RoutesBodyT, SimulateBodyT } from './routing.schemas.js';
import { agentNames, organizationAgents } from '../agents/index.js';

type RoutesInput = RoutesBodyT;
type SimulateInput = SimulateBodyT;

/** Source categories that are not a trigger type (`source` in simulate names either). */
type Origin = 'detection' | 'agent' | 'user' | 'hunt' | 'trigger';
const ORIGINS: ReadonlySet<string> = new Set<Origin>(['detection', 'agent', 'user', 'hunt', 'trigger']);
const isOrigin = (s: string): s is Origin => ORIGINS.has(s);

/** The tool that lets an agent create alerts; agents that have it can take part in a routing loop. */
export const CREATE_ALERT_TOOL = 'create_alert';

async function logTableOptions(db: Queryable, orgId: string) {
  const rows = await db
    .selectFrom('codeDetections')
    .select(['logSource', 'logStream'])
    .distinct()
    .where('organizationId', '=', orgId)
    .where('logSource', 'is not', null)
    .where('logStream', 'is not', null)
    .orderBy('logSource')
    .orderBy('logStream')
    .execute();
  return rows.map((r) => ({ source: r.logSource!, sourceDisplayName: r.logSource!, toolId: 'code_detection', stream: r.logStream!, streamLabel: r.logStream! }));
}

export function createRoutingService(deps: { db: Database }) {
  const { db } = deps;

  async function view(q: Queryable, orgId: string) {
    const settings = await q.selectFrom('alertRouting').selectAll().where('organizationId', '=', orgId).executeTakeFirst();
    const agents = (await organizationAgents(q, orgId)).map(({ id, name }) => ({ id, name }));
    const names = new Map(agents.map((a) => [a.id, a.name]));
    const routes = (settings?.routes ?? []) as Route[];
    const now = iso(new Date())!;
    return {
      routes: routes.map((r) => ({ ...r, action: 'triage' as const, responseAgentName: names.get(r.responseAgentId) ?? '' })),
      defaultSettings: {
        organizationId: orgId,
        defaultResponseAgentId: settings?.defaultResponseAgentId ?? null,
        defaultResponseAgentName: settings?.defaultResponseAgentId ? (names.get(settings.defaultResponseAgentId) ?? null) : null,
        createdAt: settings ? iso(settings.createdAt)! : now,
        updatedAt: settings ? iso(settings.updatedAt)! : now,
      },
      huntAlertRouting: {
        responseAgentId: settings?.huntResponseAgentId ?? null,
        responseAgentName: settings?.huntResponseAgentId ? (names.get(settings.huntResponseAgentId) ?? null) : null,
      },
      responseAgents: agents,
      logTableOptions: await logTableOptions(q, orgId),
    };
  }

  /** Every reference must exist in the organization; the loop rule of the API spec's "Alert triage routes". */
  async function check(q: Queryable, orgId: string, routes: Route[], defaultAgentId: string | null, huntAgentId: string | null, savedCount: number): Promise<void> {
    const issues: ValidationIssue[] = [];
    const limit = Math.max(MAX_ROUTES, savedCount);
    if (routes.length > limit) issues.push({ path: 'routes', message: `At most ${limit} routes (${MAX_ROUTES}, or as many as are already saved)`, code: 'too_big', location: 'body' });
    const agents = await organizationAgents(q, orgId);
    const byId = new Map(agents.map((a) => [a.id, a]));
    const detections = new Set((await q.selectFrom('codeDetections').select('id').where('organizationId', '=', orgId).execute()).map((d) => d.id));
    const tables = new Set((await logTableOptions(q, orgId)).map((t) => `${t.source}\u0000${t.stream}`));
    const seenIds = new Set<string>();
    routes.forEach((r, i) => {
      if (seenIds.has(r.id)) issues.push({ path: `routes.${i}.id`, message: 'Route ids must be unique', code: 'duplicate', location: 'body' });
      seenIds.add(r.id);
      if (!byId.has(r.responseAgentId)) issues.push({ path: `routes.${i}.responseAgentId`, message: 'No such agent in this organization', code: 'unknown_reference', location: 'body' });
      r.conditions.forEach((c, j) => {
        if (c.type === 'codeDetection') {
          const unknown = c.codeDetectionIds.filter((id) => !detections.has(id));
          if (unknown.length) issues.push({ path: `routes.${i}.conditions.${j}.codeDetectionIds`, message: `Unknown code detection id(s): ${unknown.slice(0, 5).join(', ')}`, code: 'unknown_reference', location: 'body' });
        }
        if (c.type === 'logTable' && !tables.has(`${c.source}\u0000${c.stream}`)) {
          issues.push({ path: `routes.${i}.conditions.${j}`, message: `No log table ${c.source}/${c.stream} among logTableOptions`, code: 'unknown_reference', location: 'body' });
        }
      });
    });
    if (defaultAgentId && !byId.has(defaultAgentId)) issues.push({ path: 'defaultResponseAgentId', message: 'No such agent in this organization', code: 'unknown_reference', location: 'body' });
    if (huntAgentId && !byId.has(huntAgentId)) issues.push({ path: 'huntResponseAgentId', message: 'No such agent in this organization', code: 'unknown_reference', location: 'body' });
    if (issues.length) throw new ValidationError(issues);

    const creators = new Set(agents.filter((a) => a.toolNames.includes(CREATE_ALERT_TOOL)).map((a) => a.id));
    const loops = findRoutingLoops(routes, defaultAgentId, creators, ALERT_SEVERITIES);
    if (loops.length) {
      throw new ValidationError(
        loops.map((l) => {
          const name = byId.get(l.agentId)!.name;
          return {
            path: l.via[0] === 'default' ? 'defaultResponseAgentId' : `routes.${Number(l.via[0]!.split(' ')[1]) - 1}.responseAgentId`,
            message: `Routing loop: agent "${name}" → alert → "${name}". "${name}" can create alerts (${CREATE_ALERT_TOOL}), and its alerts of severity ${l.severities.join(', ')} would be routed back to it (${l.via.join(', ')})`,
            code: 'routing_loop',
            location: 'body' as const,
          };
        }),
      );
    }
  }

  return {
    get: (ctx: RequestContext) => view(db, ctx.actor.organizationId),

    /** The saved routing as stored, or undefined when never saved (config plan and export). */
    stored: (ctx: RequestContext) => db.selectFrom('alertRouting').selectAll().where('organizationId', '=', ctx.actor.organizationId).executeTakeFirst(),

    /** `opts`: config apply's transaction and "managed by code" marking; routes managed by code: 409 without `force`. */
    async replace(ctx: RequestContext, body: RoutesInput, opts?: WriteOptions) {
      const orgId = ctx.actor.organizationId;
      return withTransaction(opts?.tx ?? db, async (tx) => {
        // One writer at a time per organization: the "as many as already saved" limit reads the saved list.
        await tx.insertInto('alertRouting').values({ organizationId: orgId }).onConflict((oc) => oc.doNothing()).execute();
        const saved = await tx.selectFrom('alertRouting').selectAll().where('organizationId', '=', orgId).forUpdate().executeTakeFirstOrThrow();
        assertEditable(saved, 'TriageRoutes', 'default', opts);
        const routes: Route[] = body.routes.map((r) => ({ id: r.id?.toLowerCase() ?? uuidv7(), name: r.name, enabled: r.enabled, conditions: r.conditions, responseAgentId: r.responseAgentId.toLowerCase() }));
        const defaultAgentId = body.defaultResponseAgentId === undefined ? saved.defaultResponseAgentId : (body.defaultResponseAgentId?.toLowerCase() ?? null);
        const huntAgentId = body.huntResponseAgentId === undefined ? saved.huntResponseAgentId : (body.huntResponseAgentId?.toLowerCase() ?? null);
        await check(tx, orgId, routes, defaultAgentId, huntAgentId, (saved.routes as unknown[]).length);
        await tx
          .updateTable('alertRouting')
          .set({ routes: JSON.stringify(routes), defaultResponseAgentId: defaultAgentId, huntResponseAgentId: huntAgentId, ...managedColumns(opts), updatedBy: ctx.actor.userId, updatedAt: new Date() })
          .where('organizationId', '=', orgId)
          .execute();
        await writeAudit(tx, ctx, { action: 'alertRoutes.replace', resourceType: 'alertRoutes', metadata: { routes: routes.length, defaultResponseAgentId: defaultAgentId, huntResponseAgentId: huntAgentId } });
        return view(tx, orgId);
      });
    },

    /**
     * What would happen to a sample alert, and why; nothing is created. The origin decides as
     * in intake: a trigger's alert goes to the trigger's agent unless the trigger routes alerts,
     * a hunt alert to the hunt response agent, anything else through the routes.
     */
    async simulate(ctx: RequestContext, body: SimulateInput) {
      const orgId = ctx.actor.organizationId;
      const settings = await db.selectFrom('alertRouting').selectAll().where('organizationId', '=', orgId).executeTakeFirst();
      const routes: Route[] = body.routes
        ? body.routes.map((r) => ({ id: r.id ?? '', name: r.name, enabled: r.enabled, conditions: r.conditions, responseAgentId: r.responseAgentId.toLowerCase() }))
        : ((settings?.routes ?? []) as Route[]);
      const defaultAgentId = body.defaultResponseAgentId === undefined ? (settings?.defaultResponseAgentId ?? null) : body.defaultResponseAgentId;
      const createdBy = body.createdBy ?? (body.triggerId ? 'trigger' : body.codeDetectionId ? 'detection' : isOrigin(body.source) ? body.source : 'trigger');
      // The trigger table belongs to the triggers module, which builds on this one: read, never written, here.
      const trigger = body.triggerId
        ? await db.selectFrom('agentTriggers').select(['agentId', 'name', 'source', 'routeAlerts']).where('organizationId', '=', orgId).where('id', '=', body.triggerId.toLowerCase()).where('status', '=', 'active').executeTakeFirst()
        : undefined;
      if (body.triggerId && !trigger) throw ValidationError.single('triggerId', 'No such trigger in this organization', 'unknown_reference');
      if (trigger && createdBy !== 'trigger') throw ValidationError.single('createdBy', 'must be "trigger" when triggerId is given', 'invalid_value');
      const triggerType = trigger?.source ?? (createdBy === 'trigger' && !isOrigin(body.source) ? body.source : null);
      const routed = () =>
        decideRoute(routes, defaultAgentId, {
          severity: body.severity,
          codeDetectionId: body.codeDetectionId?.toLowerCase() ?? null,
          logTable: body.logTable ?? null,
          sources: [createdBy, ...(triggerType ? [triggerType] : [])],
        });

      let decision: RoutingDecision | ReturnType<typeof huntDecision> | { outcome: 'trigger'; agentId: string | null; reason: string };
      if (createdBy === 'hunt') decision = huntDecision(settings?.huntResponseAgentId ?? null);
      else if (createdBy !== 'trigger' || trigger?.routeAlerts) decision = routed();
      else if (trigger) decision = triggerDecision(trigger.name || trigger.source, trigger.agentId);
      else {
        decision = {
          outcome: 'trigger',
          agentId: null,
          reason: `A trigger's alert goes to the trigger's own agent unless the trigger has routeAlerts; for one that has: ${routed().reason}. Give triggerId for one trigger's answer`,
        };
      }
      const agentId = decision.outcome === 'unassigned' ? null : decision.agentId;
      const agent = agentId ? { name: (await agentNames(db, orgId, [agentId])).get(agentId) } : undefined;
      return {
        outcome: decision.outcome,
        routeId: decision.outcome === 'route' ? decision.routeId || null : null,
        routeName: decision.outcome === 'route' ? decision.routeName : null,
        responseAgentId: agentId,
        responseAgentName: agent?.name ?? null,
        reason: decision.reason,
      };
    },
  };
}

export type RoutingService = ReturnType<typeof createRoutingService>;
