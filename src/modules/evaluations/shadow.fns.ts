import type { RunAlertContext } from '../runs/index.js';
import type { CaseAlertT } from './evaluations.schemas.js';

/**
 * The shadow of a case's alert: what the alert tools of an evaluation's run read and change
 * instead of a real alert. It lives on the case's result row (evaluation_results.shadow).
 */
export interface Shadow {
  id: string;
  displayId: string;
  title: string;
  description: string;
  severity: string;
  status: string;
  /** The last status the agent set (the verdict's first source); null until it sets one. */
  statusSet: string | null;
  source: { category: string; name: string };
  payload: unknown;
  /** The case's other alert fields (externalRef, dedupeKey, …), shown as given. */
  extra: Record<string, unknown>;
  timeline: Array<{ id?: string; kind: string; actorType: string; body: string; data?: Record<string, unknown>; createdAt: string }>;
}

export function shadowOfCase(alert: CaseAlertT, resultId: string, position: number, now: Date): Shadow {
  const { title, description, severity, source, payload, timeline, ...extra } = alert;
  return {
    id: resultId,
    displayId: `EVAL-${position}`,
    title,
    description,
    severity,
    status: 'open',
    statusSet: null,
    source,
    payload: payload ?? null,
    extra,
    timeline: timeline.map((e) => ({ kind: e.kind, actorType: 'system', body: e.body, createdAt: e.at ?? now.toISOString() })),
  };
}

/** What the run is told about the alert it triages, as a real triage run is (runs' alertPrompt). */
export function shadowContext(s: Shadow): RunAlertContext {
  return {
    id: s.id,
    displayId: s.displayId,
    title: s.title,
    severity: s.severity,
    status: s.status,
    source: { ...s.source, triggerType: null },
    dedupeKey: typeof s.extra.dedupeKey === 'string' ? s.extra.dedupeKey : null,
    duplicateCount: 1, // as a real alert: its first occurrence counts
    externalRef: typeof s.extra.externalRef === 'string' ? s.extra.externalRef : null,
    externalUrl: null,
  };
}

/** get_alert's answer on the shadow: the alert with its payload, and its timeline. */
export function shadowView(s: Shadow) {
  return {
    alert: { ...s.extra, ...shadowContext(s), description: s.description, payload: s.payload },
    timeline: s.timeline,
  };
}
