import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Queryable } from '../../platform/db/database.js';
import { eventDetectionsOf, eventDetectionsVersion, type EventDetection } from '../alerts/index.js';
import { DetectionSet, loadDetection, type LoadedDetection } from './detect-match.fns.js';

/**
 * A change touching more detections than this is compiled in the background while the previous
 * set keeps matching (a bulk import of SigmaHQ's rules: seconds of compiling); a smaller one is
 * compiled before the next batch, which then matches the new set (one rule: a few milliseconds).
 */
export const INLINE_COMPILE_LIMIT = 50;
/** Detections compiled between two turns of the event loop while compiling in the background. */
const COMPILE_SLICE = 20;

interface Compiled {
  version: string;
  set: DetectionSet;
  /** Per detection id, what was compiled: reused while the detection's Sigma text is the same. */
  loaded: Map<string, LoadedDetection>;
}

interface Build {
  version: string;
  /** How many detections this build compiles (the others are reused): known after one query. */
  planned: Promise<number>;
  done: Promise<DetectionSet>;
}

/**
 * Each organization's detections, compiled once per process and kept while they do not change.
 * Before each claim of batches the worker reads the detections' fingerprint (count and latest
 * change, one index-only query): a created, changed or deleted detection changes it. Then only the
 * detections whose Sigma text changed are compiled again (the others' compiled rules are reused),
 * so the batch after a change waits for that change's rules, not for all of them; a change of more
 * than INLINE_COMPILE_LIMIT detections is compiled in the background, a slice at a time, while the
 * previous set keeps serving (docs/detections.md#when-detections-change). No LISTEN connection is
 * needed, so every worker sees a change at its next claim, whatever process made it.
 */
export function createCompiledDetections(opts: { maxOrganizations?: number; inlineLimit?: number } = {}) {
  const max = opts.maxOrganizations ?? 200;
  const inlineLimit = opts.inlineLimit ?? INLINE_COMPILE_LIMIT;
  const sets = new Map<string, Compiled>();
  const builds = new Map<string, Build>();

  function keep(organizationId: string, compiled: Compiled): void {
    sets.delete(organizationId);
    if (sets.size >= max) sets.delete(sets.keys().next().value!);
    sets.set(organizationId, compiled);
  }

  function build(db: Queryable, organizationId: string, version: string): Build {
    const previous = sets.get(organizationId)?.loaded;
    const detections = eventDetectionsOf(db, organizationId);
    const changed = detections.then((all) => all.filter((d) => previous?.get(d.id)?.detection.query !== d.query));
    const planned = changed.then((c) => c.length);
    // Awaited only when a previous set exists; a failed query is reported by `done` (and retried with the claim).
    planned.catch(() => undefined);
    const done = (async () => {
      const all = await detections;
      const fresh = new Set(await changed);
      const background = fresh.size > inlineLimit && previous !== undefined;
      const loaded = new Map<string, LoadedDetection>();
      let compiled = 0;
      for (const d of all) {
        if (fresh.has(d)) {
          loaded.set(d.id, loadDetection(d));
          // In the background, a slice at a time: the worker's claims (on the previous set) go on meanwhile.
          if (background && ++compiled % COMPILE_SLICE === 0) await nextTurn();
        } else loaded.set(d.id, reuse(previous!.get(d.id)!, d));
      }
      const set = new DetectionSet([...loaded.values()]);
      // A newer build may have started meanwhile: only the latest one's result is kept.
      if (builds.get(organizationId)?.version === version) keep(organizationId, { version, set, loaded });
      return set;
    })();
    return { version, planned, done };
  }

  return {
    async forOrganization(db: Queryable, organizationId: string): Promise<DetectionSet> {
      const version = await eventDetectionsVersion(db, organizationId);
      const cached = sets.get(organizationId);
      if (cached?.version === version) return cached.set;
      let b = builds.get(organizationId);
      if (b?.version !== version) {
        const started = build(db, organizationId, version);
        builds.set(organizationId, started);
        b = started;
        const forget = () => {
          if (builds.get(organizationId) === started) builds.delete(organizationId);
        };
        started.done.then(forget, forget);
      }
      if (cached && (await b.planned) > inlineLimit) return cached.set;
      return b.done;
    },
    get size() {
      return sets.size;
    },
  };
}

/** A detection whose Sigma text did not change: its compiled rules, with its current name, severity and tags. */
function reuse(prev: LoadedDetection, detection: EventDetection): LoadedDetection {
  return prev.detection === detection ? prev : { ...prev, detection };
}

export type CompiledDetections = ReturnType<typeof createCompiledDetections>;
