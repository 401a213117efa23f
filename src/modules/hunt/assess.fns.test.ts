import { describe, expect, it } from 'vitest';
import { advisoriesOf, group, planAssessment, type AssessmentInput } from './assess.fns.js';
import type { ItemEvidence, ThreatForAssessment } from './assess.store.js';
import { DEFAULT_ALERT_SETTINGS } from './hunt-alerts.js';

const now = new Date('2026-11-20T10:00:00Z');
const threat = (id: string, over: Partial<ThreatForAssessment> = {}): ThreatForAssessment => ({
  id, canonicalKey: `CVE-2026-${id}`, title: `Threat ${id}`, latestRunId: null, activeHuntAlertId: null, latestAlertId: null, dismissed: false, prev: null, ...over,
});
const item = (id: string, threatId: string): ItemEvidence => ({
  id, threatId, title: `Report ${id}`, text: 'An advisory.', publishedAt: new Date('2026-11-19T00:00:00Z'), knownExploited: false, retracted: false,
  affectedProducts: [], structured: null, nvdId: null, kev: null, techniques: ['T1190'],
});

function input(threats: ThreatForAssessment[], items: ItemEvidence[], over: Partial<AssessmentInput> = {}): AssessmentInput {
  const itemsByThreat = group(items, (i) => i.threatId);
  let n = 0;
  return {
    organizationId: 'org', kind: 'reassess', trigger: 'sighting', now, actorUserId: null, threats, items, itemsByThreat, withdrawnThreats: new Set(),
    advisories: advisoriesOf(threats, itemsByThreat, { productKeys: new Set(), packageOnlyKeys: new Set(), purlsByKey: new Map() }),
    softwareByKey: new Map(), softwareByPurl: new Map(), indicators: [], sightings: [], detections: [], telemetry: new Set(), settings: DEFAULT_ALERT_SETTINGS, epss: new Map(),
    newId: () => `run-${++n}`,
    ...over,
  };
}

describe('planAssessment', () => {
  it('plans a run, the threat state and its activity per threat; a found indicator gets a rule proposal and a hunt alert', () => {
    const found = { id: 'ind-1', itemId: 'item-a', type: 'ipv4', value: '203.0.113.7', normalizedValue: '203.0.113.7', status: 'found', lastCheckedAt: now };
    const plan = planAssessment(input([threat('a'), threat('b', { prev: { id: 'old', relevancyScore: 10, exposureScore: 50, exposureState: 'possibly_affected', coverageState: 'none', hasFoundIoc: false, foundIocCount: 0 } })], [item('item-a', 'a'), item('item-b', 'b')], {
      // The same indicator named twice by the item is one thing to check.
      indicators: [found, { ...found, id: 'ind-2' }],
      actorUserId: 'user-1',
    }));
    expect(plan.runs.map((r) => [r.id, r.threat_id, r.exposure_state])).toEqual([['run-1', 'a', 'compromise_signal_found'], ['run-2', 'b', 'not_affected']]);
    expect(plan.updates.map((u) => [u.id, u.run, u.st])).toEqual([['a', 'run-1', 'compromise_signal_found'], ['b', 'run-2', 'not_affected']]);
    expect(plan.events.map((e) => [e.threatId, e.kind, e.actorType, e.metadata.label])).toEqual([
      ['a', 'threat_assessed', 'user', 'reassess/sighting'],
      ['b', 'threat_assessed', 'user', 'reassess/sighting'],
      ['b', 'exposure_changed', 'system', 'possibly_affected → not_affected'],
    ]);
    expect(plan.events[0]!.metadata).toMatchObject({ userId: 'user-1', executionId: 'run-1', canonicalKey: 'CVE-2026-a', hunting: true, exposureScore: plan.runs[0]!.exposure_score });
    expect(plan.proposals.map((p) => [p.threat.id, p.runId, p.found.map((f) => f.id)])).toEqual([['a', 'run-1', ['ind-1']]]);
    expect(plan.alerts).toHaveLength(1);
    expect(plan.alerts[0]!.activity).toMatchObject({ threatId: 'a', kind: 'hunt_alert_qualified', metadata: { label: 'compromise_signal_found' } });
    expect(plan.alerts[0]!.input).toMatchObject({ organizationId: 'org', threatId: 'a', runId: 'run-1', huntQualifiedBy: 'compromise_signal_found', dedupeKey: 'hunt:a', previousAlertId: null });
  });

  it('raises no alert again for a threat whose open hunt alert saw nothing new, and none for a dismissed one without a compromise signal', () => {
    const same = threat('a', { activeHuntAlertId: 'alert-1', latestAlertId: 'alert-1', prev: { id: 'old', relevancyScore: 0, exposureScore: 100, exposureState: 'compromise_signal_found', coverageState: 'none', hasFoundIoc: true, foundIocCount: 5 } });
    const found = { id: 'ind-1', itemId: 'item-a', type: 'ipv4', value: '203.0.113.7', normalizedValue: '203.0.113.7', status: 'found', lastCheckedAt: now };
    expect(planAssessment(input([same], [item('item-a', 'a')], { indicators: [found] })).alerts).toEqual([]);
    const dismissed = planAssessment(input([threat('c', { dismissed: true })], [item('item-c', 'c')]));
    expect(dismissed.alerts).toEqual([]);
    expect(dismissed.proposals).toEqual([]);
  });
});
