import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { nextCronRun as nextRun } from '../../src/platform/cron.js';
import { scheduleDueSyncs } from '../../src/modules/intel/sources/scheduler.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function jobsFor(sourceId: string) {
  return t.database.db.selectFrom('intelSyncJobs').selectAll().where('sourceId', '=', sourceId).where('organizationId', '=', t.orgA.organization.id).execute();
}

const QUARTER_HOUR = 15 * 60_000;

/**
 * The first test schedules a source due every quarter hour, then expects it not due again: a run that
 * straddled a quarter hour (next_sync_at set to :15:00.000 at :14:59.9, read at :15:00.1)
 * failed both checks, the real clock having reached the next cron time. Its steps run against
 * the database's clock, which no fake timer moves: start clear of the next quarter hour instead.
 */
async function clearOfQuarterHour(marginMs = 30_000): Promise<void> {
  const left = QUARTER_HOUR - (Date.now() % QUARTER_HOUR);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 100));
}

describe('source scheduler', () => {
  it('enqueues due sources once, moves next_sync_at to the next cron time, and skips unsubscribed ones', async () => {
    await clearOfQuarterHour();
    const created = await t.app.inject({ method: 'POST', url: '/sources', headers: bearer(t.orgA.apiKey.key), payload: { kind: 'rss', name: 'Scheduled', feedUrl: 'https://blog.example/feed', scheduleCron: '*/15 * * * *' } });
    const id = created.json().id;
    const disabled = (await t.app.inject({ method: 'POST', url: '/sources', headers: bearer(t.orgA.apiKey.key), payload: { kind: 'rss', name: 'Disabled', feedUrl: 'https://blog.example/feed2', enabled: false } })).json().id;

    const n = await scheduleDueSyncs(t.database.db);
    expect(n).toBeGreaterThan(1); // this source plus the subscribed built-ins of both organizations
    const jobs = await jobsFor(id);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ status: 'pending', trigger: 'schedule' });
    const state = await t.database.db.selectFrom('intelSourceStates').selectAll().where('sourceId', '=', id).executeTakeFirstOrThrow();
    expect(state.nextSyncAt!.getTime()).toBeGreaterThan(Date.now());
    expect(state.nextSyncAt!.getUTCMinutes() % 15).toBe(0);
    expect(await jobsFor(disabled)).toEqual([]);

    // Not due again yet: nothing new.
    expect(await scheduleDueSyncs(t.database.db)).toBe(0);
    // Due again while the first is still pending: no pile-up, the pending job stands.
    await t.database.db.updateTable('intelSourceStates').set({ nextSyncAt: new Date(Date.now() - 1000) }).where('sourceId', '=', id).execute();
    await scheduleDueSyncs(t.database.db);
    expect(await jobsFor(id)).toHaveLength(1);
  }, 60_000);

  it('subscribes organizations to the default built-in sources and respects unsubscribing', async () => {
    const { sources } = (await t.app.inject({ url: '/sources', headers: bearer(t.orgB.apiKey.key) })).json();
    const cisa = sources.find((s: { name: string }) => s.name === 'cisa-advisories');
    const optional = sources.find((s: { name: string }) => s.name === 'urlhaus');
    expect(optional.subscriptionEnabled).toBe(false);
    await t.app.inject({ method: 'PUT', url: `/sources/${cisa.id}`, headers: bearer(t.orgB.apiKey.key), payload: { enabled: false } });
    await t.database.db.deleteFrom('intelSyncJobs').execute();
    await sql`UPDATE intel_source_states SET next_sync_at = NULL`.execute(t.database.db);
    await scheduleDueSyncs(t.database.db);
    const orgBJobs = await t.database.db.selectFrom('intelSyncJobs').select('sourceId').where('organizationId', '=', t.orgB.organization.id).execute();
    const ids = orgBJobs.map((j) => j.sourceId);
    expect(ids).not.toContain(cisa.id);
    expect(ids).not.toContain(optional.id);
    expect(ids.length).toBeGreaterThan(0);
  });

  it('computes the next run of a cron expression', () => {
    expect(nextRun('0 * * * *', new Date('2026-11-22T10:15:00Z')).toISOString()).toBe('2026-11-22T11:00:00.000Z');
    expect(nextRun('30 4 * * 1', new Date('2026-11-22T10:15:00Z')).toISOString()).toBe('2026-11-23T04:30:00.000Z');
  });
});
