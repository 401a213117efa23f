/**
 * Triage routing, pure: which route wins for an alert, and whether routes and the default
 * agent would send alerts between agents in a loop. No I/O; the service feeds it rows.
 */

export type RouteCondition =
  | { type: 'codeDetection'; codeDetectionIds: string[] }
  | { type: 'logTable'; source: string; stream: string }
  | { type: 'severity'; severities: string[] }
  | { type: 'source'; sources: string[] };

export interface Route {
  id: string;
  name: string;
  enabled: boolean;
  conditions: RouteCondition[];
  responseAgentId: string;
}

/** What routing looks at in an alert. `sources` holds its trigger type and its source category. */
export interface AlertFacts {
  severity: string;
  codeDetectionId: string | null;
  logTable: { source: string; stream: string } | null;
  sources: string[];
}

export type RoutingDecision =
  | { outcome: 'route'; routeId: string; routeName: string; agentId: string; reason: string }
  | { outcome: 'default'; agentId: string; reason: string }
  | { outcome: 'unassigned'; reason: string };

function conditionMatches(c: RouteCondition, alert: AlertFacts): boolean {
  switch (c.type) {
    case 'codeDetection':
      return alert.codeDetectionId !== null && c.codeDetectionIds.some((id) => id.toLowerCase() === alert.codeDetectionId);
    case 'logTable':
      return alert.logTable !== null && alert.logTable.source === c.source && alert.logTable.stream === c.stream;
    case 'severity':
      return c.severities.includes(alert.severity);
    case 'source':
      return c.sources.some((s) => alert.sources.includes(s));
  }
}

function describe(c: RouteCondition): string {
  switch (c.type) {
    case 'codeDetection':
      return `code detection in [${c.codeDetectionIds.length} id${c.codeDetectionIds.length === 1 ? '' : 's'}]`;
    case 'logTable':
      return `log table ${c.source}/${c.stream}`;
    case 'severity':
      return `severity in [${c.severities.join(', ')}]`;
    case 'source':
      return `source in [${c.sources.join(', ')}]`;
  }
}

/** Routes top to bottom: the first enabled route whose conditions all match wins; else the default; else none. */
export function decideRoute(routes: readonly Route[], defaultAgentId: string | null, alert: AlertFacts): RoutingDecision {
  for (const [index, route] of routes.entries()) {
    if (!route.enabled) continue;
    if (route.conditions.every((c) => conditionMatches(c, alert))) {
      const why = route.conditions.length ? route.conditions.map(describe).join(' and ') : 'it has no conditions';
      return { outcome: 'route', routeId: route.id, routeName: route.name, agentId: route.responseAgentId, reason: `Route ${index + 1} "${route.name}" matched: ${why}` };
    }
  }
  const checked = routes.filter((r) => r.enabled).length;
  const none = checked === 0 ? 'No enabled route' : `None of the ${checked} enabled route${checked === 1 ? '' : 's'} matched`;
  if (defaultAgentId) return { outcome: 'default', agentId: defaultAgentId, reason: `${none}; the default response agent triages it` };
  return { outcome: 'unassigned', reason: `${none} and no default response agent is set; the alert is left unassigned` };
}

/** A hunt alert goes to the hunt response agent (routes and default are skipped). */
export function huntDecision(agentId: string | null): { outcome: 'hunt'; agentId: string; reason: string } | { outcome: 'unassigned'; reason: string } {
  return agentId
    ? { outcome: 'hunt', agentId, reason: 'Hunt alerts go to the hunt response agent' }
    : { outcome: 'unassigned', reason: 'No hunt response agent is set; the hunt alert is left unassigned' };
}

/** A trigger's alert (the trigger does not route alerts) is assigned to the trigger's own agent, whose run triages it. */
export function triggerDecision(triggerName: string, agentId: string): { outcome: 'trigger'; agentId: string; reason: string } {
  return { outcome: 'trigger', agentId, reason: `Created by the trigger "${triggerName}"; its run triages the alert` };
}

export interface RoutingLoop {
  agentId: string;
  /** Severities of agent-created alerts that come back to the agent. */
  severities: string[];
  /** The route (1-based position) or `default` that sends them there. */
  via: string[];
}

/**
 * Loops: an agent that can create alerts (it has the `create_alert` tool) whose alerts would be
 * routed back to an agent that creates alerts, and so on. An agent-created alert has the source
 * `agent`, any severity, and no code detection or log table, so where it goes does not depend on
 * which agent created it: routing each severity once gives every agent such alerts can reach.
 * Any alert-creating agent among them is in a loop (its own alerts reach it, directly or after
 * other agents created alerts on the way), and is reported with the severities and routes.
 */
export function findRoutingLoops(
  routes: readonly Route[],
  defaultAgentId: string | null,
  canCreateAlerts: ReadonlySet<string>,
  severities: readonly string[],
): RoutingLoop[] {
  const loops = new Map<string, RoutingLoop>();
  for (const severity of severities) {
    const decision = decideRoute(routes, defaultAgentId, { severity, codeDetectionId: null, logTable: null, sources: ['agent'] });
    if (decision.outcome === 'unassigned' || !canCreateAlerts.has(decision.agentId)) continue;
    const loop = loops.get(decision.agentId) ?? { agentId: decision.agentId, severities: [], via: [] };
    loop.severities.push(severity);
    const via = decision.outcome === 'route' ? `route ${routes.findIndex((r) => r.id === decision.routeId) + 1}` : 'default';
    if (!loop.via.includes(via)) loop.via.push(via);
    loops.set(decision.agentId, loop);
  }
  return [...loops.values()];
}
