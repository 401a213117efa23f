import { z } from 'zod';
import { schemaSet } from '../../platform/http/lazy-schemas.js';
import { ALERT_SEVERITIES } from './alerts.fns.js';

/** The most routes a replace may hold, unless more are already saved (the API spec's "Alert triage routes" and "Limits"). */
export const MAX_ROUTES = 50;
/** The most code detection ids one condition may list. */
export const MAX_CODE_DETECTION_IDS = 500;

/**
 * Trigger types whose alerts carry the type, as the triggers module names a trigger's `source`
 * (that module builds on this one, so the list is kept here; test/alerts/alert-route-sources.test.ts
 * pins it to the triggers' own). Not `events`: its matches are detection alerts (`detection`).
 */
export const ALERT_TRIGGER_TYPES = ['jira', 'jira-automation', 'slack', 'linear', 'webhook', 'bugcrowd', 'hackerone', 'zscaler', 'darktrace', 'cron'] as const;
/** Source categories a route can match. Hunt alerts skip the routes (they go to the hunt response agent). */
export const ROUTE_SOURCE_CATEGORIES = ['detection', 'trigger', 'agent', 'user'] as const;
/** What a `source` condition may name: a source category or a trigger type. */
export const ROUTE_SOURCES = [...ROUTE_SOURCE_CATEGORIES, ...ALERT_TRIGGER_TYPES] as const;
/** What simulate's `source` may name: the same, and `hunt`. */
export const SIMULATE_SOURCES = [...ROUTE_SOURCES, 'hunt'] as const;

/** The refusal of an unknown source names the valid ones, and the two values people reach for that are not sources. */
function unknownSource(valid: readonly string[]) {
  return (issue: { input?: unknown }) => {
    const given = typeof issue.input === 'string' ? JSON.stringify(issue.input) : 'the value';
    const hint =
      issue.input === 'api'
        ? ' (an alert created through the API has the source `user`)'
        : issue.input === 'hunt'
          ? ' (hunt alerts skip the routes: set huntResponseAgentId)'
          : issue.input === 'events'
            ? ' (an events trigger\'s matches are alerts of the source `detection`)'
            : '';
    return `${given} is not an alert source${hint}; valid: ${valid.join(', ')}`;
  };
}
const RouteSource = z.enum(ROUTE_SOURCES, { error: unknownSource(ROUTE_SOURCES) });

export const RouteCondition = z.discriminatedUnion('type', [
  z.object({ type: z.literal('codeDetection'), codeDetectionIds: z.array(z.uuid()).min(1).max(MAX_CODE_DETECTION_IDS) }),
  z.object({ type: z.literal('logTable'), source: z.string().min(1).max(200), stream: z.string().min(1).max(200) }).describe('Names an entry of `logTableOptions` (its `source` and `stream`)'),
  z.object({ type: z.literal('severity'), severities: z.array(z.enum(ALERT_SEVERITIES)).min(1) }).describe('Extension: the alert severity is one of these'),
  z
    .object({ type: z.literal('source'), sources: z.array(RouteSource).min(1).max(50) })
    .describe(
      'Extension: the alert trigger type (`jira`, `webhook`, …) or source category (`detection`, `trigger`, `agent`, `user`; an alert created through the API is `user`) is one of these. Unknown values are refused (400, naming the valid ones)',
    ),
]);

export const RouteInput = z.object({
  id: z.uuid().optional(),
  name: z.string().trim().min(1).max(255),
  enabled: z.boolean().default(true),
  conditions: z.array(RouteCondition).max(20),
  responseAgentId: z.uuid(),
});

/**
 * The routes' bodies and answers, built at first use (platform/http/lazy-schemas.ts); the
 * conditions above stay built at import since config documents build theirs from them.
 */
export const routingSchemas = schemaSet(() => {
  const RoutesBody = z.object({
    routes: z.array(RouteInput).describe(`In checking order; at most ${MAX_ROUTES}, or as many as are already saved when more`),
    defaultResponseAgentId: z.uuid().nullable().optional().describe('null leaves unmatched alerts unassigned; omitted keeps the saved default'),
    huntResponseAgentId: z.uuid().nullable().optional().describe('Extension: the agent that triages hunt alerts (`huntAlertRouting`); omitted keeps it'),
  });

  // Routes saved before sources were checked may name unknown sources: they are shown as saved (they never match).
  const StoredCondition = z.union([
    ...RouteCondition.options.filter((o) => o.shape.type.value !== 'source'),
    z.object({ type: z.literal('source'), sources: z.array(z.string()).describe('As saved: a route saved before sources were checked may name an unknown one, which never matches') }),
  ]);
  const RouteOutput = RouteInput.extend({ id: z.string(), enabled: z.boolean(), conditions: z.array(StoredCondition), action: z.literal('triage'), responseAgentName: z.string() });

  const RoutesView = z
    .object({
      routes: z.array(RouteOutput),
      defaultSettings: z.object({
        organizationId: z.string(),
        defaultResponseAgentId: z.string().nullable(),
        defaultResponseAgentName: z.string().nullable(),
        createdAt: z.string(),
        updatedAt: z.string(),
      }),
      huntAlertRouting: z.object({ responseAgentId: z.string().nullable(), responseAgentName: z.string().nullable() }),
      responseAgents: z.array(z.object({ id: z.string(), name: z.string() })),
      logTableOptions: z.array(z.object({ source: z.string(), sourceDisplayName: z.string(), toolId: z.string(), stream: z.string(), streamLabel: z.string() })),
    })
    .meta({ id: 'AlertTriageRoutes' });

  const SimulateBody = z.object({
    severity: z.enum(ALERT_SEVERITIES).default('medium'),
    codeDetectionId: z.uuid().optional(),
    logTable: z.object({ source: z.string(), stream: z.string() }).optional(),
    source: z
      .enum(SIMULATE_SOURCES, { error: unknownSource(SIMULATE_SOURCES) })
      .default('user')
      .describe('A trigger type or a source category (`user`: an alert created through the API). Unknown values are refused (400, naming the valid ones)'),
    createdBy: z
      .enum(['trigger', 'detection', 'agent', 'user', 'hunt'])
      .optional()
      .describe(
        'Where the alert comes from (default: `trigger` when `triggerId` is given or `source` is a trigger type, `detection` with a `codeDetectionId`, else `source` when it is a category, else `user`). ' +
          "Routes apply to alerts of detections, agents and the API, and to a trigger's alerts only when the trigger has `routeAlerts`; hunt alerts go to the hunt response agent",
      ),
    triggerId: z.uuid().optional().describe("The trigger the alert would come from: answers what its intake really does (its own agent, or the routes when it has `routeAlerts`)"),
    routes: z.array(RouteInput).optional().describe('Routes to try instead of the saved ones (test before saving)'),
    defaultResponseAgentId: z.uuid().nullable().optional(),
  });
  const SimulateResult = z.object({
    outcome: z.enum(['route', 'default', 'unassigned', 'trigger', 'hunt']).describe("`trigger`: assigned to the trigger's own agent (responseAgentId null when no triggerId was given); `hunt`: the hunt response agent"),
    routeId: z.string().nullable(),
    routeName: z.string().nullable(),
    responseAgentId: z.string().nullable(),
    responseAgentName: z.string().nullable(),
    reason: z.string(),
  });

  return { RoutesBody, RoutesView, SimulateBody, SimulateResult };
});
type Built = ReturnType<typeof routingSchemas>;
export type RoutesBodyT = z.infer<Built['RoutesBody']>;
export type SimulateBodyT = z.infer<Built['SimulateBody']>;
