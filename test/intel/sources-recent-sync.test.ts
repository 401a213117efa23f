import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { nextCronRun } from '../../src/platform/cron.js';
import { recentlySyncedUntil, scheduleDueSyncs } from '../../src/modules/intel/sources/scheduler.js';

/**
 * A source that synced recently is not synced again when its cron run comes due soon after (a
 * restart a few minutes after the first start synced every feed): it syncs at its first run after
 * half its interval. A sync an interval ago (the steady state), or a run picked up on time, is due as before.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const MINUTE = 60_000;

describe('source scheduler: a recent sync is not repeated', () => {
  it('recentlySyncedUntil: half the interval of the cron after the last sync, or null', () => {
    const now = new Date('2026-11-30T10:30:00Z');
    expect(recentlySyncedUntil('27 * * * *', new Date('2026-11-30T10:25:00Z'), now)?.toISOString()).toBe('2026-11-30T10:55:00.000Z');
    expect(recentlySyncedUntil('27 * * * *', new Date('2026-11-30T09:40:00Z'), now)).toBeNull();
    expect(recentlySyncedUntil('41 4 * * 1', new Date('2026-11-30T10:25:00Z'), now)?.toISOString()).toBe('2026-12-03T22:25:00.000Z');
    expect(recentlySyncedUntil('27 * * * *', null, now)).toBeNull();
  });

  it('skips a missed run of a source synced minutes ago (moving it to its run after half an interval); syncs one synced an interval ago, and a run on time', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/sources', headers: bearer(t.orgA.apiKey.key), payload: { kind: 'rss', name: 'Hourly', feedUrl: 'https://blog.example/hourly', scheduleCron: '0 * * * *' } });
    const id = created.json().id as string;
    // The first scheduling (never synced): enqueued, as before.
    await scheduleDueSyncs(t.database.db);
    const jobs = () => t.database.db.selectFrom('intelSyncJobs').select('id').where('sourceId', '=', id).execute();
    expect(await jobs()).toHaveLength(1);
    await t.database.db.deleteFrom('intelSyncJobs').where('sourceId', '=', id).execute();

    const state = t.database.db.updateTable('intelSourceStates').where('sourceId', '=', id).where('organizationId', '=', t.orgA.organization.id);
    const lastFetchedAt = new Date(Date.now() - 5 * MINUTE);
    // Its run fell due while the service was stopped (20 minutes overdue): not synced again.
    await state.set({ lastFetchedAt, nextSyncAt: new Date(Date.now() - 20 * MINUTE) }).execute();
    await scheduleDueSyncs(t.database.db);
    expect(await jobs()).toHaveLength(0);
    const moved = await t.database.db.selectFrom('intelSourceStates').select('nextSyncAt').where('sourceId', '=', id).where('organizationId', '=', t.orgA.organization.id).executeTakeFirstOrThrow();
    expect(moved.nextSyncAt!.toISOString()).toBe(nextCronRun('0 * * * *', new Date(lastFetchedAt.getTime() + 30 * MINUTE)).toISOString());

    await state.set({ lastFetchedAt: new Date(Date.now() - 61 * MINUTE), nextSyncAt: new Date(Date.now() - 20 * MINUTE) }).execute();
    await scheduleDueSyncs(t.database.db);
    expect(await jobs()).toHaveLength(1);
    await t.database.db.deleteFrom('intelSyncJobs').where('sourceId', '=', id).execute();

    // A run picked up on time syncs even after a sync that ended minutes ago (a long one, a manual one).
    await state.set({ lastFetchedAt, nextSyncAt: new Date(Date.now() - 1000) }).execute();
    await scheduleDueSyncs(t.database.db);
    expect(await jobs()).toHaveLength(1);
  });
});
