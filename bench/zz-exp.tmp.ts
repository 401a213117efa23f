import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import { startBenchDatabase } from './support/db.js';
import { createOrganization } from '../src/modules/organizations/organizations.service.js';
import { fireTrigger } from '../src/modules/triggers/trigger-alert.js';
import { noEvents } from '../src/platform/events.js';

const d = await startBenchDatabase('exp');
try {
  const org = await createOrganization(d.db, { name: 'Exp', adminEmail: 'e@x.test' });
  const orgId = (org as any).organization?.id ?? (org as any).id;
  const agentId = uuidv7(), triggerId = uuidv7();
  await sql`INSERT INTO agents (id, organization_id, name, system_prompt, model_alias, agent_type, max_steps, max_duration_ms) VALUES (${agentId}, ${orgId}, 'a', 'p', 'default', 'response', 10, 60000)`.execute(d.db);
  await sql`INSERT INTO agent_triggers (id, organization_id, agent_id, source, status) VALUES (${triggerId}, ${orgId}, ${agentId}, 'webhook', 'active')`.execute(d.db);
  const trigger = { id: triggerId, organizationId: orgId, agentId, source: 'webhook', name: 'bench', routeAlerts: false };
  const fire = () => d.db.transaction().execute((tx) => { const runId = uuidv7(); return fireTrigger(tx, { events: noEvents }, trigger, { runId, mode: 'trigger', payload: { alert: { id: 1 } }, input: { alert: { id: 1 } }, triggerContext: null, caller: { userId: null, apiKeyId: null }, alert: { title: 'x', severity: 'high', dedupeKey: null } as any }); });
  const N = Number(process.env.N ?? 300);
  await d.pool.query('SELECT pg_stat_statements_reset()').catch(() => {});
  let t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await fire();
  console.log('per firing wall µs', Number(process.hrtime.bigint() - t) / 1000 / N);
  const c = await d.pool.connect();
  const show = async (label: string, text: string, params: unknown[]) => {
    await c.query('BEGIN');
    const r = await c.query(`EXPLAIN (ANALYZE, BUFFERS, WAL, VERBOSE) ${text}`, params);
    await c.query('ROLLBACK');
    console.log('=== ' + label); for (const row of r.rows) console.log(row['QUERY PLAN']);
  };
  const id = uuidv7();
  for (let i = 0; i < 4; i++) await show('add_jobs ' + i, `SELECT * FROM graphile_worker.add_jobs(ARRAY[ROW('agents:run', '{"runId":"x"}'::json, NULL, NULL::timestamptz, 2::smallint, $1::text, NULL::smallint, NULL)::graphile_worker.job_spec])`, ['agent-run:' + uuidv7()]);
  const time = async (label: string, text: string, params: () => unknown[], n = 1000) => {
    await c.query('BEGIN');
    const cpu0 = (await c.query(`SELECT 1`)) && process.hrtime.bigint();
    for (let i = 0; i < n; i++) await c.query({ name: label, text, values: params() });
    const us = Number(process.hrtime.bigint() - cpu0) / 1000 / n;
    await c.query('ROLLBACK');
    console.log(label.padEnd(30), us.toFixed(1), 'µs wall per call');
  };
  for (let r = 0; r < 2; r++) {
  await time('select1', 'SELECT 1', () => []);
  await time('add_jobs_key', `SELECT id FROM graphile_worker.add_jobs(ARRAY[ROW('agents:run', '{"runId":"x"}'::json, NULL, NULL::timestamptz, 2::smallint, $1::text, NULL::smallint, NULL)::graphile_worker.job_spec])`, () => ['agent-run:' + uuidv7()]);
  await time('private_insert', `INSERT INTO graphile_worker._private_jobs (task_id, payload, run_at, max_attempts, key, priority) SELECT t.id, '{"runId":"x"}'::json, now(), 2, $1::text, 0 FROM graphile_worker._private_tasks t WHERE t.identifier = 'agents:run' RETURNING id`, () => ['agent-run:' + uuidv7()]);
  }
  c.release();
  const st = await d.pool.query(`SELECT calls, round((total_exec_time*1000/calls)::numeric,1) us, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) q FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 25`).catch((e) => ({ rows: [String(e)] }));
  for (const r of st.rows) console.log(r);
} finally { await d.close(); }
