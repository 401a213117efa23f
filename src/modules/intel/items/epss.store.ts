import { sql } from 'kysely';
import type { Queryable } from '../../../platform/db/database.js';

/** FIRST's EPSS scores of one file (intel-ingest's EPSS connector reads them; this store keeps them). */
export interface EpssScores {
  modelVersion: string | null;
  scoreDate: string | null;
  rows: Array<{ cve: string; epss: number; percentile: number }>;
}

const ROWS_PER_STATEMENT = 20_000;

/** EPSS scores of the organization, upserted by CVE (a whole file is ~250,000 rows, a few statements). */
export async function writeEpssScores(tx: Queryable, organizationId: string, scores: EpssScores): Promise<number> {
  const now = new Date();
  for (let i = 0; i < scores.rows.length; i += ROWS_PER_STATEMENT) {
    const chunk = scores.rows.slice(i, i + ROWS_PER_STATEMENT);
    await sql`
      INSERT INTO intel_epss_scores (organization_id, cve, epss, percentile, model_version, score_date, updated_at)
      SELECT ${organizationId}::uuid, r.cve, r.epss, r.percentile, ${scores.modelVersion}, ${scores.scoreDate}::date, ${now}
      FROM json_to_recordset(${JSON.stringify(chunk)}::json) AS r(cve text, epss real, percentile real)
      ON CONFLICT (organization_id, cve) DO UPDATE SET epss = excluded.epss, percentile = excluded.percentile,
        model_version = excluded.model_version, score_date = excluded.score_date, updated_at = excluded.updated_at`.execute(tx);
  }
  return scores.rows.length;
}

/** The organization's EPSS scores of these CVEs (for hunt's alert gate), by CVE. */
export async function readEpssScores(db: Queryable, organizationId: string, cves: readonly string[]): Promise<Map<string, { probability: number; percentile: number }>> {
  if (cves.length === 0) return new Map();
  const rows = await db
    .selectFrom('intelEpssScores')
    .select(['cve', 'epss', 'percentile'])
    .where('organizationId', '=', organizationId)
    // One array parameter (`= ANY`), not one parameter per CVE: an SBOM's threats can name thousands.
    .where((eb) => eb('cve', '=', eb.fn.any(sql.val([...cves]))))
    .execute();
  return new Map(rows.map((r) => [r.cve, { probability: Number(r.epss), percentile: Number(r.percentile) }]));
}
