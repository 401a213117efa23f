import type { Database } from './platform/db/database.js';
import { seedBuiltinSources } from './modules/intel/index.js';

/** Reference data every database needs, upserted after migrations at every start. */
export async function seedReferenceData(db: Database): Promise<void> {
  await seedBuiltinSources(db);
}
