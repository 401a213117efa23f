import type { Database } from './platform/db/database.js';
import { applyReferenceSeeds, type ReferenceSeed } from './platform/db/reference-seeds.js';
import { builtinSourcesSeed } from './modules/intel/index.js';

/** Reference data every database needs, each seed applied after migrations when its content changed. */
export const REFERENCE_SEEDS: readonly ReferenceSeed[] = [builtinSourcesSeed];

/** Applies the seeds whose content changed since the last start (platform/db/reference-seeds.ts); returns their names. */
export function seedReferenceData(db: Database): Promise<string[]> {
  return applyReferenceSeeds(db, REFERENCE_SEEDS);
}
