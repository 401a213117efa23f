import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { createAgent } from '../support/agents.js';

/**
 * /metrics beyond HTTP (issue 18 item 10): runs by status, the job queue's depth and age, and
 * intel source sync outcomes per source, all read at scrape time. No worker runs here, so the
 * queued runs stay waiting with their jobs due.
 */
let t: TestContext;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const scrape = async () => (await t.app.inject({ url: '/metrics' })).body;
const value = (body: string, series: string) => {
  const line = body.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('/metrics', () => {
  it('counts runs by status, the job queue and source sync outcomes', async () => {
    const key = t.orgA.apiKey.key;
    const agentId = await createAgent(t, key, {});
    for (const input of ['a', 'b']) {
      const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async`, headers: bearer(key), payload: { input } });
      expect(res.statusCode).toBe(200);
    }
    // A run that ended an hour ago, and one that ended two days ago (outside the window).
    const runs = await t.database.db.selectFrom('agentRuns').select('id').where('agentId', '=', agentId).execute();
    await sql`UPDATE agent_runs SET status = 'error', finished_at = now() - interval '1 hour' WHERE id = ${runs[0]!.id}`.execute(t.database.db);
    await sql`UPDATE graphile_worker._private_jobs SET run_at = now() - interval '90 seconds'`.execute(t.database.db);

    const source = await t.database.db.insertInto('intelSources').values({
      id: '0190f2a0-0000-7000-8000-00000000a001', organizationId: t.orgA.organization.id, builtinKey: null, name: 'metrics-feed', displayName: 'Metrics feed',
      kind: 'rss', apiType: null, feedUrl: 'https://feeds.example.com/rss', serverUrl: null, collectionId: null, authType: null, username: null, apiKeyCiphertext: null,
      scheduleCron: '0 * * * *', maxEntries: 50, createdBy: null, createdAt: new Date(), updatedAt: new Date(),
    }).returning('id').executeTakeFirstOrThrow();
    await t.database.db.insertInto('intelSourceStates').values({ organizationId: t.orgA.organization.id, sourceId: source.id, lastFetchedAt: new Date(Date.now() - 60_000), lastStatus: 'error', lastError: 'fetch failed', updatedAt: new Date() }).execute();

    const body = await scrape();
    expect(body).toContain('# TYPE rampart_agent_runs_active gauge');
    expect(value(body, 'rampart_agent_runs_active{status="waiting"}')).toBe(1);
    expect(value(body, 'rampart_agent_runs_active{status="running"}')).toBe(0);
    expect(value(body, 'rampart_agent_runs_ended_24h{status="error"}')).toBe(1);
    expect(value(body, 'rampart_agent_runs_ended_24h{status="done"}')).toBe(0);
    expect(value(body, 'rampart_job_queue_depth{task="agents:run"}')).toBe(2);
    expect(value(body, 'rampart_job_queue_oldest_age_seconds{task="agents:run"}')).toBeGreaterThanOrEqual(89);
    expect(value(body, 'rampart_intel_source_last_sync{source="metrics-feed",kind="custom",status="error"}')).toBe(1);
    expect(value(body, 'rampart_intel_source_last_sync_age_seconds{source="metrics-feed",kind="custom"}')).toBeGreaterThanOrEqual(59);
    expect(body).toContain('# TYPE rampart_deliveries gauge');

    await sql`UPDATE agent_runs SET finished_at = now() - interval '2 days' WHERE id = ${runs[0]!.id}`.execute(t.database.db);
    expect(value(await scrape(), 'rampart_agent_runs_ended_24h{status="error"}')).toBe(0);
  });
});
