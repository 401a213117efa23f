import type { Queryable } from '../../platform/db/database.js';
import { eventDetectionsOf, eventDetectionsVersion } from '../alerts/index.js';
import { DetectionSet, loadDetection } from './detect-match.fns.js';

/**
 * Each organization's detections, compiled once per process and kept while they do not change.
 * Before each batch the worker reads the detections' fingerprint (count and latest change, one
 * index-only query): a created, changed or deleted detection changes it, and the set is
 * compiled again. No LISTEN connection is needed, so every worker sees a change at its next
 * batch, whatever process made it.
 */
export function createCompiledDetections(opts: { maxOrganizations?: number } = {}) {
  const max = opts.maxOrganizations ?? 200;
  const sets = new Map<string, { version: string; set: DetectionSet }>();
  const loading = new Map<string, Promise<DetectionSet>>();

  async function load(db: Queryable, organizationId: string, version: string): Promise<DetectionSet> {
    const set = new DetectionSet((await eventDetectionsOf(db, organizationId)).map(loadDetection));
    sets.delete(organizationId);
    if (sets.size >= max) sets.delete(sets.keys().next().value!);
    sets.set(organizationId, { version, set });
    return set;
  }

  return {
    async forOrganization(db: Queryable, organizationId: string): Promise<DetectionSet> {
      const version = await eventDetectionsVersion(db, organizationId);
      const cached = sets.get(organizationId);
      if (cached?.version === version) return cached.set;
      const key = `${organizationId}:${version}`;
      let pending = loading.get(key);
      if (!pending) {
        pending = load(db, organizationId, version).finally(() => loading.delete(key));
        loading.set(key, pending);
      }
      return pending;
    },
    get size() {
      return sets.size;
    },
  };
}

export type CompiledDetections = ReturnType<typeof createCompiledDetections>;
