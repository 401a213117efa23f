import { describe, expect, it } from 'vitest';
import { decideRoute, findRoutingLoops, type Route } from './routing.fns.js';

const SEVERITIES = ['low', 'medium', 'high', 'critical'];
const route = (id: string, agent: string, conditions: Route['conditions'], enabled = true): Route => ({ id, name: id, enabled, conditions, responseAgentId: agent });
const alert = (over: Partial<Parameters<typeof decideRoute>[2]> = {}) => ({ severity: 'medium', codeDetectionId: null, logTable: null, sources: ['trigger', 'jira'], ...over });

describe('decideRoute', () => {
  const routes = [
    route('critical', 'A', [{ type: 'severity', severities: ['critical'] }]),
    route('off', 'B', [], false),
    route('jira-high', 'C', [{ type: 'source', sources: ['jira'] }, { type: 'severity', severities: ['high', 'critical'] }]),
    route('okta', 'D', [{ type: 'logTable', source: 'okta', stream: 'system_log' }]),
    route('det', 'E', [{ type: 'codeDetection', codeDetectionIds: ['0193F0A4-0000-7000-8000-000000000001'] }]),
  ];
  it('first enabled route whose conditions all match wins', () => {
    expect(decideRoute(routes, null, alert({ severity: 'critical' }))).toMatchObject({ outcome: 'route', routeId: 'critical', agentId: 'A' });
    expect(decideRoute(routes, null, alert({ severity: 'high' }))).toMatchObject({ outcome: 'route', routeId: 'jira-high', reason: 'Route 3 "jira-high" matched: source in [jira] and severity in [high, critical]' });
    expect(decideRoute(routes, null, alert({ logTable: { source: 'okta', stream: 'system_log' } }))).toMatchObject({ routeId: 'okta' });
    expect(decideRoute(routes, null, alert({ codeDetectionId: '0193f0a4-0000-7000-8000-000000000001' }))).toMatchObject({ routeId: 'det' });
  });
  it('a disabled route never wins; unmatched goes to the default, else nowhere', () => {
    expect(decideRoute(routes, 'Z', alert({ severity: 'low' }))).toEqual({ outcome: 'default', agentId: 'Z', reason: 'None of the 4 enabled routes matched; the default response agent triages it' });
    expect(decideRoute(routes, null, alert({ severity: 'low' }))).toMatchObject({ outcome: 'unassigned' });
    expect(decideRoute([], null, alert())).toMatchObject({ outcome: 'unassigned', reason: expect.stringContaining('No enabled route') });
  });
});

describe('findRoutingLoops', () => {
  it('an alert-creating agent that its own alerts reach is a loop, with the severities and routes', () => {
    const routes = [route('r1', 'A', [{ type: 'severity', severities: ['critical'] }]), route('r2', 'B', [{ type: 'source', sources: ['agent'] }])];
    expect(findRoutingLoops(routes, null, new Set(['B']), SEVERITIES)).toEqual([{ agentId: 'B', severities: ['low', 'medium', 'high'], via: ['route 2'] }]);
    expect(findRoutingLoops(routes, null, new Set(['A', 'B']), SEVERITIES)).toEqual([
      { agentId: 'B', severities: ['low', 'medium', 'high'], via: ['route 2'] },
      { agentId: 'A', severities: ['critical'], via: ['route 1'] },
    ]);
  });
  it('through the default agent', () => {
    expect(findRoutingLoops([], 'A', new Set(['A']), SEVERITIES)).toEqual([{ agentId: 'A', severities: SEVERITIES, via: ['default'] }]);
  });
  it('no loop when agent alerts cannot reach an alert-creating agent', () => {
    const routes = [route('r1', 'A', [{ type: 'source', sources: ['jira'] }]), route('r2', 'A', [{ type: 'codeDetection', codeDetectionIds: ['x'] }]), route('r3', 'B', [])];
    expect(findRoutingLoops(routes, 'A', new Set(['A']), SEVERITIES)).toEqual([]);
    expect(findRoutingLoops([route('r1', 'A', [], false)], null, new Set(['A']), SEVERITIES)).toEqual([]);
  });
});
