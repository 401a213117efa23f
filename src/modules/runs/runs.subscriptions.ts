import type { Subscriptions } from '../../platform/events.js';
import { pinRunsOfChangedAgent } from './run-pinning.js';
import { resumeDecidedRun } from './run-approvals.js';

/**
 * Runs' subscriptions (every role): an agent about to change pins its unfinished runs to it as it
 * still is (run-pinning.ts); a run whose approval requests are all decided resumes (run-approvals.ts).
 */
export const runsSubscriptions: Subscriptions = {
  'agent.changed': (tx, e) => pinRunsOfChangedAgent(tx, e),
  'approval.decided': (tx, e) => resumeDecidedRun(tx, e),
};
