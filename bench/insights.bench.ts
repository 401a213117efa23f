/**
 * Insights: `GET /api/insights` (issue 29: p95 < 200 ms at 100,000 alerts) against the real app
 * as `rampart serve` in a child process. The organization holds 100,000 alerts over 90 days
 * (statuses, severities, sources, five agents assigned to 60 % of them with acknowledge and
 * resolve times), their timeline entries (created, an agent's verdict on the assigned ones, a
 * person's change on one in ten of those), 20,000 agent runs and 10,000 deliveries.
 *
 * Knobs: BENCH_ALERTS (100000; quick 20000), BENCH_INSIGHTS_REQUESTS (100 per window; quick 20).
 */
import { sql } from 'kysely';
import { request } from 'undici';
import type { Database } from '../src/platform/db/database.js';
import { createOrganization } from '../src/modules/organizations/index.js';
import { backfillVerdictColumns } from '../src/modules/alerts/migrations/0052_alert_verdict_columns.js';
import { startBenchDatabase } from './support/db.js';
import { envNumber, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { startRampartServer, waitReady } from './support/http-children.js';
import { table } from './support/report.js';
import { percentile } from './support/stats.js';
import { json } from './triggers.bench.js';

export const TARGETS = { insightsP95Ms: 200 } as const;
const f = (v: number, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');

export async function seedForExplain(db: Database, organizationId: string, agentIds: string[], destinationId: string, userId: string, count: number): Promise<void> {
  const agents = sql.raw(`ARRAY[${agentIds.map((a) => `'${a}'::uuid`).join(', ')}]`);
  // Alerts over 90 days; g % 10 < 6 assigned to one of five agents, acknowledged 1–60 min after creation.
  await sql`
    INSERT INTO alerts (id, organization_id, number, title, severity, status, source_category, source_name, trigger_type, created_by, payload,
      assigned_agent_id, first_triaged_at, resolved_at, created_at, updated_at)
    SELECT gen_random_uuid(), ${organizationId}, g, 'Bench alert ' || g,
      (ARRAY['low', 'medium', 'high', 'critical'])[1 + g % 4],
      (ARRAY['open', 'in_progress', 'escalated', 'closed_true_positive', 'closed_false_positive', 'closed_benign'])[1 + g % 6],
      (ARRAY['trigger', 'detection', 'agent', 'user'])[1 + g % 4], 'bench', (ARRAY['jira', 'webhook', NULL, 'linear'])[1 + g % 4], 'trigger', '{}'::jsonb,
      CASE WHEN g % 10 < 6 THEN (${agents})[1 + g % 5] END,
      CASE WHEN g % 10 < 6 THEN t + ((1 + g % 60) || ' minutes')::interval END,
      CASE WHEN 1 + g % 6 >= 4 THEN t + ((1 + g % 48) || ' hours')::interval END,
      t, t
    FROM (SELECT g, now() - ((g::float8 / ${count}) * interval '90 days') AS t FROM generate_series(1, ${count}) g) s`.execute(db);
  await sql`
    INSERT INTO alert_timeline (id, organization_id, alert_id, kind, actor_type, body, data, created_at)
    SELECT gen_random_uuid(), organization_id, id, 'created', 'system', '', '{}'::jsonb, created_at FROM alerts WHERE organization_id = ${organizationId}`.execute(db);
  await sql`
    INSERT INTO alert_timeline (id, organization_id, alert_id, kind, actor_type, actor_agent_id, body, data, created_at)
    SELECT gen_random_uuid(), organization_id, id, 'closed', 'agent', assigned_agent_id, 'verdict', jsonb_build_object('from', 'in_progress', 'to', 'closed_benign'), created_at + interval '1 hour'
    FROM alerts WHERE organization_id = ${organizationId} AND assigned_agent_id IS NOT NULL`.execute(db);
  await sql`
    INSERT INTO alert_timeline (id, organization_id, alert_id, kind, actor_type, actor_user_id, body, data, created_at)
    SELECT gen_random_uuid(), organization_id, id, 'status_changed', 'human', ${userId}, 'overturned', jsonb_build_object('from', 'closed_benign', 'to', 'closed_true_positive'), created_at + interval '2 hours'
    FROM alerts WHERE organization_id = ${organizationId} AND assigned_agent_id IS NOT NULL AND number % 10 = 0`.execute(db);
  await sql`
    INSERT INTO agent_runs (id, organization_id, agent_id, status, mode, input_tokens, output_tokens, queued_at, updated_at)
    SELECT gen_random_uuid(), ${organizationId}, (${agents})[1 + g % 5], (ARRAY['done', 'done', 'done', 'error'])[1 + g % 4], 'async', 1000 + g % 500, 200 + g % 100,
      now() - ((g::float8 / 20000) * interval '90 days'), now()
    FROM generate_series(1, 20000) g`.execute(db);
  await sql`
    INSERT INTO destination_deliveries (id, organization_id, destination_id, event_kind, event_id, status, created_at, updated_at)
    SELECT gen_random_uuid(), ${organizationId}, ${destinationId}, 'alert.created', gen_random_uuid(), (ARRAY['succeeded', 'succeeded', 'failed', 'retrying'])[1 + g % 4],
      now() - ((g::float8 / 10000) * interval '90 days'), now()
    FROM generate_series(1, 10000) g`.execute(db);
  // The status-history columns the status change keeps, from the seeded timeline.
  await backfillVerdictColumns(db, organizationId);
  await sql`VACUUM ANALYZE alerts, alert_timeline, agent_runs, destination_deliveries`.execute(db);
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const alertCount = envNumber('BENCH_ALERTS', ctx.quick ? 20_000 : 100_000);
  const requests = envNumber('BENCH_INSIGHTS_REQUESTS', ctx.quick ? 20 : 100);
  const database = await startBenchDatabase('insights');
  try {
    const org = await createOrganization(database.db, { name: 'Bench Org', adminEmail: 'bench@insights.test' });
    const server = await startRampartServer(database);
    try {
      await waitReady(server);
      const auth = { authorization: `Bearer ${org.apiKey.key}` };
      const agentIds: string[] = [];
      for (let i = 0; i < 5; i++) agentIds.push((await json(`${server.origin}/api/agents`, { method: 'POST', headers: auth, body: { name: `Bench agent ${i}`, systemPrompt: 'Triage.' } })).id as string);
      const destination = await json(`${server.origin}/api/output-destinations`, { method: 'POST', headers: auth, body: { type: 'webhook', name: 'Bench SIEM', config: { url: 'https://siem.example/hook', authType: 'bearer' }, token: 't' } });
      ctx.log(`seeding ${alertCount} alerts with their timelines, 20,000 runs, 10,000 deliveries`);
      await seedForExplain(database.db, org.organization.id, agentIds, destination.id as string, org.user.id, alertCount);

      const rows: string[][] = [];
      let worst = 0;
      for (const window of ['7d', '30d', '90d']) {
        const lat: number[] = [];
        for (let i = 0; i < requests + 5; i++) {
          const t0 = performance.now();
          const res = await request(`${server.origin}/api/insights?window=${window}`, { headers: auth });
          const body = (await res.body.json()) as { alerts?: { perDay: Array<{ total: number }> } };
          if (res.statusCode !== 200 || !body.alerts) throw new Error(`/api/insights?window=${window}: ${res.statusCode}`);
          if (i >= 5) lat.push(performance.now() - t0);
        }
        const sorted = Float64Array.from(lat).sort();
        const p95 = percentile(sorted, 95);
        worst = Math.max(worst, p95);
        rows.push([window, f(percentile(sorted, 50)), f(p95), f(percentile(sorted, 99))]);
      }
      console.log(`\n${table(['GET /api/insights window', 'p50 ms', 'p95 ms', 'p99 ms'], rows, [1, 2, 3])}`);
      return {
        figures: [{ name: `GET /api/insights p95 at ${alertCount} alerts (worst window)`, value: worst, unit: 'ms', digits: 2, target: { value: TARGETS.insightsP95Ms, kind: 'max' } }],
        notes: [`${requests} sequential requests per window after 5 warm-up requests; intel and hunt tables empty (their queries are scoped by organization and window like the others)`],
        details: { alertCount, requests, rows },
      };
    } finally {
      await server.stop();
    }
  } finally {
    await database.close();
  }
}

export const insightsBench: BenchDefinition = { name: 'insights', title: 'GET /api/insights at 100k alerts', run };
