import { sql } from 'kysely';
import type { Database } from '../../../platform/db/database.js';

/** Sampled rows per organization (before its share of the table is known: of the whole copy). */
const SAMPLE_ROWS = 5_000;
/** A sample only guides the choice of a plan, never an answer: refreshed in the background. */
const SAMPLE_TTL_MS = 10 * 60_000;
const MAX_ORGANIZATIONS = 200;

interface Sample {
  /** The share of the copy's rows the sample read (TABLESAMPLE SYSTEM's percentage / 100). */
  fraction: number;
  types: string[];
  values: string[];
}

/**
 * How many of an organization's indicators a search will match, estimated from a block sample of
 * its rows of intel_indicator_search (lowered values, as searched), so that GET /iocs can pick the
 * cheaper way to compute a search it has not seen: a narrow one reads its sorted matches once and
 * counts them, a broad one only counts. A wrong estimate costs time, never correctness. The
 * planner's own estimate for a trigram LIKE was no guide (`%northwind.io%`: 24 rows estimated,
 * 4,258 found). The first request of an organization starts the sample and goes on without it;
 * a stale sample is served while its replacement loads. Memory: every organization is sampled at
 * the same rate (~SAMPLE_ROWS of the whole copy), so all samples together hold about that many values.
 */
export function createSearchSampler(db: Database) {
  const samples = new Map<string, { at: number; loading: boolean; sample: Sample | null }>();

  async function load(orgId: string): Promise<Sample> {
    const { rows: size } = await sql<{ rows: number }>`
      SELECT coalesce(sum(greatest(c.reltuples, 0)), 0)::float8 AS rows FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'intel_indicator_search'::regclass`.execute(db);
    const percent = Math.min(100, Math.max(0.001, (100 * SAMPLE_ROWS) / Math.max(1, size[0]!.rows)));
    const { rows } = await sql<{ type: string; searchValue: string }>`
      SELECT type, search_value FROM intel_indicator_search TABLESAMPLE SYSTEM (${sql.lit(percent)})
      WHERE organization_id = ${orgId}`.execute(db);
    return { fraction: percent / 100, types: rows.map((r) => r.type), values: rows.map((r) => r.searchValue) };
  }

  function refresh(orgId: string) {
    const entry = samples.get(orgId) ?? { at: 0, loading: false, sample: null };
    if (entry.loading || Date.now() - entry.at < SAMPLE_TTL_MS) return;
    entry.loading = true;
    samples.delete(orgId);
    samples.set(orgId, entry);
    if (samples.size > MAX_ORGANIZATIONS) samples.delete(samples.keys().next().value!);
    load(orgId).then(
      (sample) => Object.assign(entry, { sample, at: Date.now(), loading: false }),
      () => Object.assign(entry, { at: Date.now(), loading: false }), // tried again after the TTL
    );
  }

  return {
    /** Estimated matches of `term` (refanged, any case) among the organization's indicators of `types`; null until a sample is there. */
    estimate(orgId: string, types: readonly string[] | undefined, term: string): number | null {
      refresh(orgId);
      const sample = samples.get(orgId)?.sample;
      if (!sample) return null;
      const needle = term.toLowerCase();
      let hits = 0;
      for (let i = 0; i < sample.values.length; i++) if ((!types?.length || types.includes(sample.types[i]!)) && sample.values[i]!.includes(needle)) hits++;
      return hits / sample.fraction;
    },
  };
}
