import type { Subscriptions } from '../../platform/events.js';
import { noteTriageRunEnded } from './alerts.create.js';
import { noteApproval } from './alerts.approvals.js';

/**
 * Alerts' subscriptions (every role): a triage run's outcome is noted on its alert (and the alert
 * and verdict answered for the run's output event); a triage run's approval requests and their
 * decisions are noted on its timeline.
 */
export const alertsSubscriptions: Subscriptions = {
  'run.ended': noteTriageRunEnded,
  'approval.requested': (tx, e) => noteApproval(tx, e, 'approval_requested'),
  'approval.decided': (tx, e) => noteApproval(tx, e, 'approval_decided'),
};
