import { createInvalidatedCache, type InvalidatedCache } from '../../platform/cache/invalidated-cache.js';
import type { InvalidationBus } from '../../platform/cache/invalidation-bus.js';
import type { IntakeTrigger } from './triggers.repo.js';

/**
 * Intake reads its trigger (with whom its runs act as) from an invalidated read cache
 * (src/platform/cache) instead of a query per webhook: on the intake path every round trip costs
 * more CPU than the statement it carries. Every change that intake depends on invalidates inside
 * its transaction: the trigger's own writes (this module's service, by trigger id) and its agent's
 * updates and deletion (everything: rare, and the agent's trigger ids are not at hand). The
 * process that wrote sees the change at once; other API processes when the NOTIFY arrives at
 * commit (milliseconds); the TTL bounds staleness only if a notification is lost. Unknown ids
 * are cached too (as null), bounded by `maxEntries`.
 */
export const TRIGGERS_CHANNEL = 'rampart_triggers_invalidate';
const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

export type IntakeTriggerCache = InvalidatedCache<IntakeTrigger | null>;

export function createIntakeTriggerCache(bus: InvalidationBus): IntakeTriggerCache {
  return createInvalidatedCache<IntakeTrigger | null>({ channel: TRIGGERS_CHANNEL, bus, ttlMs: TTL_MS, maxEntries: MAX_ENTRIES });
}

