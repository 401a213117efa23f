import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { createOrganization, type CreatedOrganization } from '../../src/modules/organizations/organizations.service.js';

// Rows read with raw SQL come back camelCased (the CamelCasePlugin); JSON columns are read as text.
// Webhook intake's group commit: plain deliveries (no delivery id, no dedupe key, no routing, no
// acting alert.created subscriber) arriving together are written by one statement.

let t: TestContext;
let org: CreatedOrganization;
const logged: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });
  // A wait long enough that deliveries sent together share a statement on a loaded test machine.
  t = await createTestApp({ logger, env: { RAMPART_INTAKE_GROUP_WAIT_MS: '50' } });
  // An organization of its own: no destination subscribes to alert.created there.
  org = await createOrganization(t.database.db, { name: 'Grouped intake org', adminEmail: 'admin@grouped.test' });
});
afterAll(() => t.close());

async function webhookTrigger(save: Record<string, unknown> = {}) {
  const key = bearer(org.apiKey.key);
  const agentId = (await t.app.inject({ method: 'POST', url: '/api/agents', headers: key, payload: { name: 'Grouped', systemPrompt: 'Handle it.' } })).json().id as string;
  const { secret, webhookUrl } = (await t.app.inject({ url: `/api/agents/${agentId}/trigger/webhook/fields`, headers: key })).json().data;
  const id = webhookUrl.split('/').pop() as string;
  const saved = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: key, payload: { triggerId: id, source: 'webhook', ...save } });
  expect(saved.statusCode, saved.body).toBe(200);
  return { id, agentId, path: `/api/trigger/webhook/${id}`, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' } };
}

type Trigger = Awaited<ReturnType<typeof webhookTrigger>>;
const deliver = (trig: Trigger, body: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: trig.path, headers: { ...trig.headers, ...headers }, payload: JSON.stringify(body) });

/** What a delivery wrote: its run, its alert, the alert's timeline and the run's job (JSON columns as text: kept as stored). */
async function written(runId: string) {
  const { rows: runs } = await sql<Record<string, unknown>>`
    SELECT r.*, r.input::text AS input, r.trigger_context::text AS trigger_context, r.xmin::text AS tx FROM agent_runs r WHERE r.id = ${runId}`.execute(t.database.db);
  const { rows: alerts } = await sql<Record<string, unknown>>`
    SELECT a.*, a.payload::text AS payload, a.routing::text AS routing, a.xmin::text AS tx FROM alerts a WHERE a.triage_run_id = ${runId}`.execute(t.database.db);
  const alert = alerts[0];
  const { rows: timeline } = alert
    ? await sql<Record<string, unknown>>`SELECT *, data::text AS data FROM alert_timeline WHERE alert_id = ${alert.id as string} ORDER BY created_at, id`.execute(t.database.db)
    : { rows: [] };
  // The payload is only in graphile-worker's private table (its public view leaves it out).
  const { rows: jobs } = await sql<Record<string, unknown>>`
    SELECT j.task_identifier, p.payload::text AS job_payload, j.key, j.max_attempts, j.priority, j.queue_name, j.attempts, j.revision, j.flags
    FROM graphile_worker.jobs j JOIN graphile_worker._private_jobs p ON p.id = j.id WHERE j.key = ${`agent-run:${runId}`}`.execute(t.database.db);
  return { run: runs[0], alert, timeline, jobs };
}

const metric = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec((await t.app.inject({ url: '/metrics' })).body)?.[1]);

describe('group commit of plain webhook deliveries', () => {
  it('writes concurrent deliveries in one statement, each answered with its own run, alert, timeline and job', async () => {
    const trig = await webhookTrigger();
    const statementsBefore = await metric('rampart_intake_grouped_statements_total');
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => deliver(trig, { n: i, host: `h-${i}` })));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(8).fill(200));
    const runIds = answers.map((a) => a.json().executionId as string);
    expect(new Set(runIds).size).toBe(8);

    const transactions = new Set<unknown>();
    const numbers = new Set<unknown>();
    for (const [i, runId] of runIds.entries()) {
      const w = await written(runId);
      expect(w.run).toMatchObject({ id: runId, status: 'waiting', mode: 'trigger', agentId: trig.agentId, triggerId: trig.id, alertId: w.alert?.id, agentVersion: expect.any(Number) });
      // Each delivery's own body, not a batch-mate's.
      expect(JSON.parse(w.run!.input as string)).toEqual({ n: i, host: `h-${i}` });
      expect(JSON.parse(w.alert!.payload as string)).toEqual({ n: i, host: `h-${i}` });
      expect(w.run!.alertDisplayId).toBe(`RMP-${w.alert!.number}`);
      expect(w.alert).toMatchObject({ status: 'in_progress', assignedAgentId: trig.agentId, originRunId: runId, originTriggerId: trig.id, duplicateCount: 1 });
      expect(w.timeline.map((e) => [e.kind, e.body])).toEqual([
        ['created', `RMP-${w.alert!.number} created from webhook trigger`],
        ['triage_started', "The trigger's run triages this alert"],
      ]);
      expect(w.jobs).toEqual([{ taskIdentifier: 'agents:run', jobPayload: JSON.stringify({ runId }), key: `agent-run:${runId}`, maxAttempts: 2, priority: 0, queueName: null, attempts: 0, revision: 0, flags: { [`agent:${trig.agentId}`]: true } }]);
      transactions.add(w.run!.tx);
      expect(w.alert!.tx).toBe(w.run!.tx);
      numbers.add(w.alert!.number);
    }
    expect(numbers.size).toBe(8);
    // Written together: fewer transactions than deliveries, and counted on /metrics.
    expect(transactions.size).toBeLessThan(8);
    expect(await metric('rampart_intake_grouped_statements_total')).toBe(statementsBefore + transactions.size);
  });

  it.each([
    ['an object', { rule: 'Beacon', nested: { list: [1, 'two', null], 'key with spaces': true } }],
    ['null', null],
    ['a string', 'just text'],
    ['a number', 42],
  ])('writes exactly what the one-delivery statement writes (body: %s)', async (_kind, body) => {
    const trig = await webhookTrigger({ name: 'Same rows' });
    // Plain: grouped. With a delivery id: the transaction that claims it and writes the alert with its run.
    const grouped = await deliver(trig, body);
    expect(grouped.statusCode, grouped.body).toBe(200);
    const single = (await deliver(trig, body, { 'idempotency-key': `same-rows-${trig.id}` })).json().executionId as string;
    const a = await written(grouped.json().executionId as string);
    const b = await written(single);
    const varying = ['id', 'number', 'createdAt', 'updatedAt', 'firstTriagedAt', 'originRunId', 'triageRunId', 'alertId', 'alertDisplayId', 'runId', 'queuedAt', 'tx', 'key', 'jobPayload'];
    const same = (row: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(row ?? {}).filter(([k]) => !varying.includes(k)));
    const context = (run: Record<string, unknown> | undefined) => {
      const { deliveryId: _id, receivedAt: _at, headers, ...rest } = JSON.parse(run!.triggerContext as string) as { deliveryId?: unknown; receivedAt?: unknown; headers: Record<string, string> };
      const { 'idempotency-key': _key, ...kept } = headers;
      return { ...rest, headers: kept };
    };
    expect(same(a.alert)).toEqual(same(b.alert));
    expect(a.alert!.payload).toBe(b.alert!.payload);
    expect({ ...same(a.run), triggerContext: context(a.run) }).toEqual({ ...same(b.run), triggerContext: context(b.run) });
    expect(a.run!.input).toBe(b.run!.input);
    const entry = (e: Record<string, unknown>, number: unknown) => ({ ...same(e), body: String(e.body).replace(`RMP-${number}`, 'RMP-n') });
    expect(a.timeline.map((e) => entry(e, a.alert!.number))).toEqual(b.timeline.map((e) => entry(e, b.alert!.number)));
    expect(a.jobs.map(same)).toEqual(b.jobs.map(same));
  });

  it('a delivery PostgreSQL refuses fails alone: its batch-mates are written and answered', async () => {
    const good = await webhookTrigger();
    const bad = await webhookTrigger();
    // Both triggers (and the organization's subscriptions) cached: the deliveries below reach the batch without a query.
    for (const trig of [good, bad]) expect((await deliver(trig, { warm: true })).statusCode).toBe(200);
    // Another process deletes the bad trigger's agent: this one's intake cache still has the
    // trigger (until that process's NOTIFY), and the run's agent_id now violates its foreign key.
    await sql`DELETE FROM agents WHERE id = ${bad.agentId}`.execute(t.database.db);
    logged.length = 0;
    const refusedBefore = await metric('rampart_intake_grouped_refused_total');

    const [refused, ...answers] = await Promise.all([deliver(bad, { n: 'bad' }), ...Array.from({ length: 5 }, (_, i) => deliver(good, { n: i }))]);
    expect(refused!.statusCode).toBe(500);
    expect(refused!.json()).toEqual({ error: 'Internal server error' });
    expect(answers.map((a) => a.statusCode)).toEqual(Array(5).fill(200));
    for (const [i, a] of answers.entries()) {
      const w = await written(a.json().executionId as string);
      expect(JSON.parse(w.run!.input as string)).toEqual({ n: i });
      expect(w.alert).toBeDefined();
      expect(w.jobs).toHaveLength(1);
    }
    // Nothing of the refused delivery was written.
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM alerts WHERE payload = '{"n":"bad"}'::jsonb`.execute(t.database.db);
    expect(rows[0]!.n).toBe(0);
    // It was in a batch with the others, which was refused and written again one by one.
    expect(await metric('rampart_intake_grouped_refused_total')).toBe(refusedBefore + 1);
    const warning = logged.find((l) => String(l.msg).includes('grouped statement was refused'));
    expect(warning).toMatchObject({ level: 40, size: expect.any(Number) });
    expect(warning!.size as number).toBeGreaterThan(1);
  });

  it('a signal with a dedupe key, without a transaction: counted on its open alert, no run, no job, no display number drawn', async () => {
    const trig = await webhookTrigger({ alertMapping: { title: '/rule', dedupeKey: '/host' } });
    const first = await deliver(trig, { rule: 'Beacon', host: 'dup-a' });
    const runId = first.json().executionId as string;
    const again = await deliver(trig, { rule: 'Beacon', host: 'dup-a' });
    const other = await deliver(trig, { rule: 'Beacon', host: 'dup-b' });
    const a = await written(runId);
    const b = await written(other.json().executionId as string);
    expect(again.json()).toEqual({ skipped: true, message: `Duplicate of RMP-${a.alert!.number} (dedupe key webhook:dup-a): counted on that alert, no new run`, executionId: runId });
    expect(a.alert!.duplicateCount).toBe(2);
    expect(a.timeline.map((e) => e.kind)).toEqual(['created', 'triage_started', 'duplicate']);
    // The duplicate drew no number: the next alert of the organization has the next one.
    expect(Number(b.alert!.number)).toBe(Number(a.alert!.number) + 1);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM agent_runs WHERE trigger_id = ${trig.id}`.execute(t.database.db);
    expect(rows[0]!.n).toBe(2);
  });
});
