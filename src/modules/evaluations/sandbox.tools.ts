import type { Tool, ToolSet } from 'ai';
import { uuidv7 } from 'uuidv7';
import type { Database } from '../../platform/db/database.js';
import { missingPermissions } from '../../platform/auth/permissions.js';
import { alertsModule, refusedStatusChange } from '../alerts/index.js';
import type { ToolRunContext } from '../tools/index.js';
import type { LoadRunSandbox, RunTools } from '../runs/index.js';
import { appendToolCall, findResultOfRun, resetShadow, updateShadow } from './evaluations.repo.js';
import type { Shadow } from './shadow.fns.js';
import { shadowContext, shadowView } from './shadow.fns.js';

/**
 * The sandbox an evaluation's run executes in (docs/evaluations.md#the-sandbox): nothing real is
 * touched. The alert tools act on the case's shadow alert (kept on the case's result row); the
 * tools that act on the world (create_alert, send_to_destination, http_request,
 * record_indicator_check) are recorded with their arguments and not executed; read-only
 * built-ins run; an MCP tool runs only when its server declares it read-only (`readOnlyHint`),
 * else it is recorded. Any tool this file does not know is recorded: the sandbox fails closed.
 */
const SHADOWED = ['get_alert', 'comment_on_alert', 'update_alert', 'set_alert_status'] as const;
const READ_ONLY_BUILTINS = new Set(['search_intel_items', 'lookup_indicator']);

/** An evaluation never waits for a person: the call is recorded as "would have asked approval" and the model told so. */
const WOULD_ASK_APPROVAL = { recorded: true, wouldHaveAskedApproval: true, message: 'This run is an evaluation: this call would have asked a person for approval; it was recorded and not executed.' };

const RECORDED_ANSWER = { recorded: true, message: 'This run is an evaluation: the call was recorded with its arguments and not executed.' };

export const evaluationSandbox: LoadRunSandbox = async (db, run) => {
  const row = await findResultOfRun(db, run.organizationId, run.id);
  if (!row) return null;
  // Each attempt starts from the case as given: a run retried after its worker died must not see what the first attempt did.
  const shadow = await resetShadow(db, row);
  return {
    alert: shadow ? shadowContext(shadow) : null,
    wrap: (built, ctx) => sandboxed(db, row.id, built, ctx),
  };
};

function sandboxed(db: Database, resultId: string, built: RunTools, ctx: ToolRunContext): RunTools {
  const tools: ToolSet = {};
  // Taken synchronously when a call starts: a shadow call appended after a faster one keeps its place (issue 47 item 7).
  let calls = 0;
  for (const [name, original] of Object.entries(built.tools)) {
    const shadow = (SHADOWED as readonly string[]).includes(name) ? shadowTool(db, resultId, name as (typeof SHADOWED)[number], ctx) : null;
    const effect = shadow ? 'shadow' : READ_ONLY_BUILTINS.has(name) || built.readOnlyTools?.has(name) ? 'called' : 'recorded';
    tools[name] = {
      ...original,
      execute: async (input: unknown, options: Parameters<NonNullable<Tool['execute']>>[1]) => {
        const call = { toolName: name, args: input ?? null, order: ++calls };
        // The agent's tool policy first: a call that would wait for a person is recorded, never run; a denied one is refused.
        const policy = built.policyOf?.(name, input) ?? 'allow';
        if (policy === 'approve') {
          await appendToolCall(db, resultId, { ...call, effect: 'approval' });
          return WOULD_ASK_APPROVAL;
        }
        if (policy === 'deny') {
          await appendToolCall(db, resultId, { ...call, effect: 'refused' });
          throw new Error(`Refused by the agent's tool policy: ${name} is denied`);
        }
        if (shadow) {
          // Listed once it is known whether the shadow took it (a refused status change, a missing permission).
          try {
            const answer = await shadow(input as Record<string, unknown>);
            await appendToolCall(db, resultId, { ...call, effect: 'shadow' });
            return answer;
          } catch (err) {
            await appendToolCall(db, resultId, { ...call, effect: 'refused' });
            throw err;
          }
        }
        await appendToolCall(db, resultId, { ...call, effect });
        if (effect === 'called') return original.execute!(input as never, options);
        return RECORDED_ANSWER;
      },
    } as Tool;
  }
  return { tools, close: built.close, readOnlyTools: built.readOnlyTools ?? new Set(), ...(built.toolInfo ? { toolInfo: built.toolInfo } : {}) };
}

/** The permissions the alerts module declares for its tool (its manifest): the shadow replaces the checked tool's execute, so it checks them itself. */
function requireToolPermissions(ctx: ToolRunContext, name: (typeof SHADOWED)[number]): void {
  const missing = missingPermissions(ctx.actor.permissions, alertsModule.tools?.[name]?.permissions ?? []);
  if (missing.length > 0) throw new Error(`Permission denied: ${name} needs ${missing.join(', ')}, which the user this run acts for does not have`);
}

/** The alert tools over the shadow alert: the same checks as on a real alert (permissions, the agent's status rules). */
function shadowTool(db: Database, resultId: string, name: (typeof SHADOWED)[number], ctx: ToolRunContext) {
  return async (input: Record<string, unknown>): Promise<unknown> => {
    requireToolPermissions(ctx, name);
    return updateShadow<unknown>(db, resultId, (s: Shadow) => {
      const given = input.alertId as string | undefined;
      if (given !== undefined && given !== s.id && given.toUpperCase() !== s.displayId) {
        throw new Error('No such alert in this organization');
      }
      const now = new Date().toISOString();
      const note = (kind: string, body: string, data: Record<string, unknown> = {}) => {
        const entry = { id: uuidv7(), kind, actorType: 'agent', body, data, createdAt: now };
        s.timeline.push(entry);
        return entry;
      };
      switch (name) {
        case 'get_alert':
          return { shadow: s, answer: shadowView(s) };
        case 'comment_on_alert':
          return { shadow: s, answer: { entryId: note('comment', String(input.bodyMarkdown)).id }, changed: true };
        case 'update_alert': {
          const change = { title: input.title, description: input.description, severity: input.severity };
          if (change.title === undefined && change.description === undefined && change.severity === undefined) throw new Error('Give title, description or severity');
          if (typeof change.title === 'string') s.title = change.title;
          if (typeof change.description === 'string') s.description = change.description;
          if (typeof change.severity === 'string') s.severity = change.severity;
          note('updated', '', change);
          return { shadow: s, answer: { alertId: s.id, title: s.title, severity: s.severity }, changed: true };
        }
        case 'set_alert_status': {
          const to = String(input.status);
          const refused = refusedStatusChange(s.status as never, to as never, { type: 'agent', agentId: ctx.agentId, agentName: 'agent' });
          if (refused) throw new Error(refused);
          note(to === 'escalated' ? 'escalated' : to.startsWith('closed_') ? 'closed' : 'status_changed', typeof input.reason === 'string' ? input.reason : '', { from: s.status, to });
          s.status = to;
          s.statusSet = to;
          return { shadow: s, answer: { alertId: s.id, status: s.status }, changed: true };
        }
      }
    });
  };
}
