import { tool } from '../../platform/ai-sdk.js';
import { z } from 'zod';
import { requestContextOf, type ToolCatalog, type ToolDeps, type ToolRunContext } from '../tools/index.js';
import type { Database } from '../../platform/db/database.js';
import { ALERT_SEVERITIES, ALERT_STATUSES, alertCommands, type StatusActor } from './alerts.fns.js';
import { findAlert, listTimeline } from './alerts.repo.js';
import { createAlert, type AlertDeps } from './alerts.create.js';
import { changeAlertStatus, commentOnAlert, updateAlertFields } from './alerts.service.js';
import { NotFoundError, ValidationError } from '../../platform/http/errors.js';
import { agentNames } from '../agents/index.js';

const agentActor = async (db: Database, ctx: ToolRunContext): Promise<StatusActor> => {
  const names = await agentNames(db, ctx.organizationId, [ctx.agentId]);
  return { type: 'agent', agentId: ctx.agentId, agentName: names.get(ctx.agentId) ?? 'agent' };
};
// Domain errors become plain messages for the model (its tool result), never internals.
const plain = async <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ValidationError) throw new Error(err.issues.map((i) => i.message).join('; '));
    if (err instanceof NotFoundError) throw new Error('No such alert in this organization');
    throw err;
  }
};
const alertId = z.string().min(1).max(64).optional().describe("The alert id (uuid) or display id (RMP-42); default: the alert this run triages");
/**
 * The alert a call acts on: the one named, else the run's own alert. Any alert of the
 * organization may be named: what a run may do is decided by the permissions of the user it
 * acts for (alert.read, alert.triage), as for that user in the console, not by which alert
 * the run was started for.
 */
const target = (ctx: ToolRunContext, given: string | undefined): string => {
  const id = given ?? ctx.alertId;
  if (!id) throw new Error('Give alertId: this run triages no alert');
  return id;
};

/** The process's events, which every alert change emits (the tool set always passes them in the service). */
const alertDeps = (tdeps: ToolDeps): AlertDeps => {
  if (!tdeps.events) throw new Error('The alert tools need the event bus');
  return { events: tdeps.events };
};

/**
 * The alert tools an agent may be given, declared by the alerts manifest with each command's
 * permissions (`alertCommands`, shared with the routes) and checked by the tool set at each call.
 * Each acts as the run's user and records the agent and run on the timeline. A refused change
 * (closing as true positive, an unknown alert) throws: the model sees a tool error and the alert
 * is unchanged.
 */
export const alertTools = {
  get_alert: {
    ...alertCommands.read,
    factory: (tdeps, ctx) =>
      tool({
        description: 'Read an alert: its fields, original payload and timeline.',
        inputSchema: z.object({ alertId }),
        execute: async (input) => {
          return plain(async () => {
            const alert = await findAlert(tdeps.db, requestContextOf(ctx).actor.organizationId, target(ctx, input.alertId), { withPayload: true });
            if (!alert) throw new NotFoundError('Alert');
            return { alert, timeline: (await listTimeline(tdeps.db, alert.id, 100, 0)).entries };
          });
        },
      }),
  },
  comment_on_alert: {
    ...alertCommands.comment,
    factory: (tdeps, ctx) =>
      tool({
        description: 'Add a comment (Markdown) to an alert timeline: findings, evidence, reasoning.',
        inputSchema: z.object({ alertId, bodyMarkdown: z.string().min(1).max(20_000) }),
        execute: async (input) => {
          return plain(async () => {
            const actor = await agentActor(tdeps.db, ctx);
            const entry = await tdeps.db.transaction().execute((tx) => commentOnAlert(tx, ctx.organizationId, target(ctx, input.alertId), input.bodyMarkdown, actor, ctx.runId));
            return { entryId: entry.id };
          });
        },
      }),
  },
  update_alert: {
    ...alertCommands.update,
    factory: (tdeps, ctx) =>
      tool({
        description: 'Change an alert title, description or severity.',
        inputSchema: z.object({
          alertId,
          title: z.string().min(1).max(500).optional(),
          description: z.string().max(20_000).optional(),
          severity: z.enum(ALERT_SEVERITIES).optional(),
        }),
        execute: async ({ alertId: id, ...change }) => {
          if (change.title === undefined && change.description === undefined && change.severity === undefined) throw new Error('Give title, description or severity');
          return plain(async () => {
            const actor = await agentActor(tdeps.db, ctx);
            const alert = await tdeps.db.transaction().execute((tx) => updateAlertFields(tx, ctx.organizationId, target(ctx, id), change, actor, ctx.runId));
            return { alertId: alert.id, title: alert.title, severity: alert.severity };
          });
        },
      }),
  },
  set_alert_status: {
    ...alertCommands.setStatus,
    factory: (tdeps, ctx) =>
      tool({
        description:
          'Set an alert status: in_progress, escalated (a person must decide), closed_false_positive, closed_benign. Agents cannot close as true positive: escalate instead.',
        inputSchema: z.object({ alertId, status: z.enum(ALERT_STATUSES), reason: z.string().max(5000).optional() }),
        execute: async (input) => {
          return plain(async () => {
            const actor = await agentActor(tdeps.db, ctx);
            const r = await tdeps.db.transaction().execute((tx) => changeAlertStatus(tx, alertDeps(tdeps), ctx.organizationId, target(ctx, input.alertId), input, actor, ctx.runId));
            return { alertId: r.alert.id, status: r.alert.status };
          });
        },
      }),
  },
  create_alert: {
    ...alertCommands.create,
    factory: (tdeps, ctx) =>
      tool({
        description: 'Create an alert (e.g. a detection agent that found something in logs). Alerts with the same dedupeKey while one is open count as duplicates.',
        inputSchema: z.object({
          title: z.string().min(1).max(500),
          description: z.string().max(20_000).optional(),
          severity: z.enum(ALERT_SEVERITIES).default('medium'),
          dedupeKey: z.string().min(1).max(500).optional(),
          evidence: z.unknown().optional().describe('What was found; kept as the alert payload'),
        }),
        execute: async (input) => {
          const agent = await agentActor(tdeps.db, ctx);
          const result = await tdeps.db.transaction().execute((tx) =>
            createAlert(
              tx,
              {
                organizationId: ctx.organizationId,
                title: input.title,
                description: input.description,
                severity: input.severity,
                source: { category: 'agent', name: agent.type === 'agent' ? agent.agentName : 'agent' },
                createdBy: 'agent',
                createdByUserId: ctx.actor.userId,
                dedupeKey: input.dedupeKey ? `agent:${ctx.agentId}:${input.dedupeKey}` : null,
                payload: input.evidence ?? null,
                originAgentId: ctx.agentId,
                originRunId: ctx.runId,
                triage: { kind: 'route', actorUserId: ctx.actor.userId },
              },
              alertDeps(tdeps),
            ),
          );
          return { alertId: result.alert.id, displayId: result.alert.displayId, created: result.created };
        },
      }),
  },
} satisfies ToolCatalog;
