import type { Subscriptions } from '../../platform/events.js';
import type { IntakeTriggerCache } from './intake-cache.js';
import { stampTriggerRunSucceeded } from './triggers.repo.js';

/**
 * Triggers' subscriptions. In every role: a run a trigger started that ends `done` stamps the
 * trigger's `lastRunSucceededAt` (the trigger row is this module's; runs only say which trigger).
 * In the API process, with intake's cache (its state): an agent changed or went, with its
 * triggers, and the cache is dropped in that transaction.
 */
export function triggersSubscriptions(cache: IntakeTriggerCache | undefined): Subscriptions {
  return {
    'run.ended': async (tx, run) => {
      if (run.status === 'done' && run.triggerId) await stampTriggerRunSucceeded(tx, run.triggerId);
    },
    ...(cache ? { 'agent.changed': (tx) => cache.invalidateAll(tx) } : {}),
  };
}
