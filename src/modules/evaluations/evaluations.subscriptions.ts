import type { Subscriptions } from '../../platform/events.js';
import { queueRunJudging, recordCaseRun } from './evaluation.flow.js';

/** Evaluations' subscriptions: an evaluation's run records its case; a real run is queued for the judge. */
export const evaluationsSubscriptions: Subscriptions = {
  'run.ended': async (tx, run) => (run.mode === 'evaluation' ? recordCaseRun(tx, run) : queueRunJudging(tx, run)),
};
