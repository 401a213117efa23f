import { Gauge, type Registry } from 'prom-client';
import { sql } from 'kysely';
import type { Database } from '../../platform/db/database.js';

/**
 * Run counts for /metrics, read at scrape time through two partial indexes (migration 0021), so
 * a scrape costs the same with a million runs: the runs waiting or running now, and the runs that
 * ended in the last 24 hours by how they ended.
 */
export function registerRunMetrics(registry: Registry, db: Database): void {
  new Gauge({
    name: 'rampart_agent_runs_active',
    help: 'Agent runs waiting for a worker or running now, by status',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const { rows } = await sql<{ status: string; n: number }>`
        SELECT status, count(*)::int AS n FROM agent_runs WHERE status IN ('waiting', 'running') GROUP BY status`.execute(db).catch(() => ({ rows: [] }));
      for (const status of ['waiting', 'running']) this.set({ status }, rows.find((r) => r.status === status)?.n ?? 0);
    },
  });
  new Gauge({
    name: 'rampart_agent_runs_ended_24h',
    help: 'Agent runs that ended in the last 24 hours, by status (done, error, interrupted)',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const { rows } = await sql<{ status: string; n: number }>`
        SELECT status, count(*)::int AS n FROM agent_runs
        WHERE finished_at IS NOT NULL AND finished_at > now() - interval '24 hours' GROUP BY status`.execute(db).catch(() => ({ rows: [] }));
      for (const status of ['done', 'error', 'interrupted']) this.set({ status }, rows.find((r) => r.status === status)?.n ?? 0);
    },
  });
}
