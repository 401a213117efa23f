import type { AlertSeverity, AlertStatus } from './alerts.tables.js';
import type { Permission } from '../../platform/auth/permissions.js';

/** Pure rules of the alert lifecycle: statuses, dispositions, who may set what. */

export const ALERT_SEVERITIES = ['low', 'medium', 'high', 'critical'] as const satisfies readonly AlertSeverity[];
export const ALERT_STATUSES = [
  'open',
  'in_progress',
  'escalated',
  'closed_true_positive',
  'closed_false_positive',
  'closed_benign',
] as const satisfies readonly AlertStatus[];
export const OPEN_STATUSES: readonly AlertStatus[] = ['open', 'in_progress', 'escalated'];

export type Disposition = 'true_positive' | 'false_positive' | 'benign';

/** The prefix of every display id (`RMP-42`): numbers are per organization, from 1. */
export const DISPLAY_PREFIX = 'RMP';

/**
 * The alert commands' permissions, declared once: the route of a command (alerts.routes.ts) and
 * the agent tool that runs it (alert.tools.ts, the manifest's `tools`) both use them. A route
 * whose answer carries the alert adds `alert.read` (`answering`): a write must not read what a
 * GET refuses; a tool answers only ids and statuses, so it needs the command's own.
 */
export const alertCommands = {
  read: { permissions: ['alert.read'] },
  create: { permissions: ['alert.triage'] },
  comment: { permissions: ['alert.triage'] },
  /** Title, description, severity. */
  update: { permissions: ['alert.triage'] },
  setStatus: { permissions: ['alert.triage'] },
  assign: { permissions: ['alert.manage'] },
} as const satisfies Record<string, { permissions: readonly Permission[] }>;

/** A route's config for a command whose answer carries the alert: the command's permissions and `alert.read`. */
export function answering(command: { permissions: readonly Permission[] }): { permissions: Permission[] } {
  return { permissions: [...command.permissions, 'alert.read'] };
}

export function displayIdOf(number: number): string {
  return `${DISPLAY_PREFIX}-${number}`;
}

/** `RMP-42` (any case) → 42; anything else → null. */
export function numberOfDisplayId(value: string): number | null {
  const m = /^rmp-(\d{1,15})$/i.exec(value.trim());
  return m ? Number(m[1]) : null;
}

export function isClosed(status: AlertStatus): boolean {
  return status.startsWith('closed_');
}

export function dispositionOf(status: AlertStatus): Disposition | null {
  switch (status) {
    case 'closed_true_positive':
      return 'true_positive';
    case 'closed_false_positive':
      return 'false_positive';
    case 'closed_benign':
      return 'benign';
    default:
      return null;
  }
}

/** Who changes an alert: a person, an agent (its run's tools), or the system (hunt reopening a closed alert). */
export type StatusActor = { type: 'human'; userId: string } | { type: 'agent'; agentId: string; agentName: string } | { type: 'system' };

/** The timeline's actor columns for an actor: the one mapping of actor → columns. */
export function timelineActor(actor: StatusActor): { actorType: StatusActor['type']; actorUserId: string | null; actorAgentId: string | null } {
  return { actorType: actor.type, actorUserId: actor.type === 'human' ? actor.userId : null, actorAgentId: actor.type === 'agent' ? actor.agentId : null };
}

/** The resolution columns after a change to `to`: set on closing (who, when, why), cleared otherwise. */
export function resolutionColumns(to: AlertStatus, actor: StatusActor, reason: string | null, now: Date) {
  const closing = isClosed(to);
  return {
    resolvedAt: closing ? now : null,
    resolvedByType: closing && actor.type !== 'system' ? actor.type : null,
    resolvedByUserId: closing && actor.type === 'human' ? actor.userId : null,
    resolvedByAgentName: closing && actor.type === 'agent' ? actor.agentName : null,
    resolvedReason: closing ? reason : null,
  };
}

/**
 * The status-history columns a change writes (migration 0052; read by Insights): an agent's
 * change is its latest verdict, a person's change is dated, and an escalation is remembered.
 */
export function historyColumns(to: AlertStatus, actor: StatusActor, now: Date) {
  return {
    ...(actor.type === 'agent' ? { agentVerdictStatus: to, agentVerdictAt: now } : {}),
    ...(actor.type === 'human' ? { humanStatusAt: now } : {}),
    ...(to === 'escalated' ? { everEscalated: true } : {}),
  };
}

/**
 * Why a status change is refused, or null when it is allowed. Agents may not conclude that an
 * alert is a true positive: that call belongs to a person, so an agent escalates instead.
 * Setting the status an alert already has is refused too (it would record nothing).
 */
export function refusedStatusChange(from: AlertStatus, to: AlertStatus, actor: StatusActor): string | null {
  if (from === to) return `The alert is already ${to}`;
  if (actor.type === 'agent' && to === 'closed_true_positive') {
    return 'An agent cannot close an alert as a true positive; set the status to escalated so a person decides';
  }
  return null;
}

/** The timeline entry kind of a status change: reopening and closing are told apart from the rest. */
export function statusChangeKind(from: AlertStatus, to: AlertStatus): 'reopened' | 'closed' | 'escalated' | 'status_changed' {
  if (isClosed(from) && !isClosed(to)) return 'reopened';
  if (isClosed(to)) return 'closed';
  if (to === 'escalated') return 'escalated';
  return 'status_changed';
}

/** Severity words senders use → ours (`info`/`informational` → low, `error`/`severe` → high, …). */
export function normalizeSeverity(value: unknown): AlertSeverity | null {
  if (typeof value === 'number' && Number.isFinite(value)) {
    // Numeric scales (GuardDuty 0–10, CVSS): the conventional bands.
    if (value >= 9) return 'critical';
    if (value >= 7) return 'high';
    if (value >= 4) return 'medium';
    return 'low';
  }
  if (typeof value !== 'string') return null;
  const v = value.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(v)) return normalizeSeverity(Number(v));
  if (['critical', 'crit', 'p1', 'sev1', 'highest', 'urgent', 'emergency', 'fatal'].includes(v)) return 'critical';
  if (['high', 'p2', 'sev2', 'error', 'severe', 'major'].includes(v)) return 'high';
  if (['medium', 'moderate', 'p3', 'sev3', 'warning', 'warn', 'normal'].includes(v)) return 'medium';
  if (['low', 'p4', 'p5', 'sev4', 'sev5', 'lowest', 'minor', 'info', 'informational', 'none'].includes(v)) return 'low';
  return null;
}

/**
 * An alert's external link as stored: http(s) only, since the console renders it as a link.
 * Webhook payloads and agent tools reach alert creation without the API's schema, so a
 * `javascript:` or `data:` URL from them is dropped here rather than stored.
 */
export function httpUrlOrNull(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? value : null;
  } catch {
    return null;
  }
}
