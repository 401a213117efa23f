import { Gauge, type Registry } from 'prom-client';
import { sql } from 'kysely';
import type { Database } from '../../platform/db/database.js';
import { sharedRead } from '../../platform/http/metrics.js';

/**
 * Intel source sync outcomes for /metrics, read at scrape time from the per-organization source
 * states (one small row per organization and source): how many organizations' last sync of each
 * source ended ok, not modified or in error, and how long ago each source last synced anywhere.
 * Built-in sources are labelled by their key, custom ones by their name.
 */
export function registerSyncMetrics(registry: Registry, db: Database): void {
  const outcomes = sharedRead(() =>
    sql<{ source: string; kind: string; status: string | null; n: number; age: number | null }>`
      SELECT coalesce(s.builtin_key, s.name) AS source,
             CASE WHEN s.builtin_key IS NULL THEN 'custom' ELSE 'builtin' END AS kind,
             st.last_status AS status, count(*)::int AS n,
             extract(epoch FROM now() - max(st.last_fetched_at))::float8 AS age
      FROM intel_source_states st JOIN intel_sources s ON s.id = st.source_id
      WHERE st.last_status IS NOT NULL
      GROUP BY 1, 2, 3`.execute(db).then((r) => r.rows, () => []),
  );

  new Gauge({
    name: 'rampart_intel_source_last_sync',
    help: 'Organizations whose last sync of an intel source ended with this status (ok, not_modified, error), by source',
    labelNames: ['source', 'kind', 'status'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await outcomes()) this.set({ source: r.source, kind: r.kind, status: r.status! }, r.n);
    },
  });
  new Gauge({
    name: 'rampart_intel_source_last_sync_age_seconds',
    help: 'Seconds since an intel source was last synced (any organization, any outcome), by source',
    labelNames: ['source', 'kind'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const youngest = new Map<string, { kind: string; age: number }>();
      for (const r of await outcomes()) {
        const seen = youngest.get(r.source);
        if (r.age !== null && (!seen || r.age < seen.age)) youngest.set(r.source, { kind: r.kind, age: r.age });
      }
      for (const [source, { kind, age }] of youngest) this.set({ source, kind }, Math.max(0, age));
    },
  });
}
