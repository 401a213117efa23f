import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { scheduleDueCronTriggers } from '../../src/modules/triggers/cron.js';
import { startScheduler } from '../../src/scheduler.js';

/**
 * Issue 47 §27, as a user schedules an agent: an impossible schedule is refused with a clear
 * 400; `timezone` (IANA, DST-correct) reads the schedule in local time; a disabled trigger has no
 * next run and a due one never shows a past time; a run with its own `input` still gets its
 * `scheduledAt` (trigger context, GET /api/agent-runs/{id}); and a worker starting (a restart)
 * ticks at once, so the run that fell due while it was down starts then, exactly once.
 */
let t: TestContext;
let admin: Record<string, string>;
let agentId: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  agentId = (await t.app.inject({ method: 'POST', url: '/api/agents', headers: admin, payload: { name: 'Scheduled', systemPrompt: 'Run the daily check.' } })).json().id;
});
afterAll(() => t?.close());

const save = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: admin, payload: { source: 'cron', ...payload } });
const get = async (id: string) => ((await t.app.inject({ url: `/api/agents/${agentId}/trigger`, headers: admin })).json().triggers as Array<Record<string, any>>).find((x) => x.id === id)!;
const setNext = (id: string, at: Date) => t.database.db.updateTable('agentTriggers').set({ nextRunAt: at }).where('id', '=', id).execute();
const runsOf = async (triggerId: string) => {
  const res = await t.app.inject({ url: `/api/agent-runs?triggerId=${triggerId}`, headers: admin });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().runs as Array<{ id: string }>;
};
const runOf = async (runId: string) => (await t.app.inject({ url: `/api/agent-runs/${runId}`, headers: admin })).json();
/** The wall-clock time of an instant in a zone, `HH:MM`. */
const wallClock = (iso: string, timeZone: string) => new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));

describe('cron trigger schedules', () => {
  it('refuses a schedule that never fires (0 0 31 2 *) with a 400 naming the field, on create and on update', async () => {
    const res = await save({ cronSchedule: '0 0 31 2 *' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'cronSchedule', message: 'never fires: no date matches it (e.g. "0 0 31 2 *": February has no 31st)', code: 'custom', location: 'body' }] });
    const ok = (await save({ cronSchedule: '0 6 * * *' })).json();
    const put = await t.app.inject({ method: 'PUT', url: `/api/agents/${agentId}/trigger/${ok.id}`, headers: admin, payload: { cronSchedule: '0 0 30 2 *' } });
    expect(put.statusCode).toBe(400);
    expect(put.json().issues).toEqual([expect.objectContaining({ path: 'cronSchedule', message: expect.stringMatching(/^never fires/) })]);
    // A syntax error keeps its own message (not "never fires" too).
    expect((await save({ cronSchedule: '61 * * * *' })).json().issues).toEqual([expect.objectContaining({ path: 'cronSchedule', message: 'must be a 5-field cron expression, e.g. "0 * * * *"' })]);
  });

  it('reads the schedule in its IANA time zone, DST-correct; refuses an unknown zone; null is UTC', async () => {
    const res = await save({ cronSchedule: '0 9 * * *', timezone: 'Europe/Paris', name: 'Paris morning' });
    expect(res.statusCode, res.body).toBe(200);
    const trig = res.json();
    expect(trig).toMatchObject({ timezone: 'Europe/Paris', cronSchedule: '0 9 * * *' });
    expect(wallClock(trig.nextRunAt, 'Europe/Paris')).toBe('09:00');
    // Across the spring change (Sunday 28 March 2027): Saturday's 09:00 is 08:00 UTC, Sunday's 07:00 UTC.
    await setNext(trig.id, new Date('2027-03-27T08:00:00Z'));
    await scheduleDueCronTriggers(t.database.db, new Date('2027-03-27T08:00:20Z'));
    expect((await get(trig.id)).nextRunAt).toBe('2027-03-28T07:00:00.000Z');
    const [run] = await runsOf(trig.id);
    expect((await runOf(run!.id)).triggerContext).toMatchObject({ source: 'cron', scheduledAt: '2027-03-27T08:00:00.000Z', timezone: 'Europe/Paris' });

    const bad = await save({ cronSchedule: '0 9 * * *', timezone: 'Mars/Olympus' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues).toEqual([{ path: 'timezone', message: 'must be an IANA time zone name, e.g. "Europe/Paris" or "America/New_York"', code: 'custom', location: 'body' }]);
    const utc = await t.app.inject({ method: 'PUT', url: `/api/agents/${agentId}/trigger/${trig.id}`, headers: admin, payload: { timezone: null } });
    expect(utc.json()).toMatchObject({ timezone: null });
    expect(wallClock(utc.json().nextRunAt, 'UTC')).toBe('09:00');
  });

  it('a disabled trigger has no next run; a due one shows now, never a past time', async () => {
    const trig = (await save({ cronSchedule: '*/5 * * * *', enabled: false })).json();
    expect(trig.nextRunAt).toBeNull();
    const enabled = await t.app.inject({ method: 'PATCH', url: `/api/agents/${agentId}/trigger/${trig.id}/status`, headers: admin, payload: { enabled: true } });
    expect(enabled.statusCode, enabled.body).toBe(200);
    expect(Date.parse(enabled.json().nextRunAt)).toBeGreaterThan(Date.now() - 1000);
    await setNext(trig.id, new Date(Date.now() - 10 * 60_000));
    const asked = Date.now();
    const shown = Date.parse((await get(trig.id)).nextRunAt);
    expect(shown).toBeGreaterThanOrEqual(asked - 1000);
  });

  it('a run with its own input still gets its scheduledAt (trigger context); missed times are one run, for the latest', async () => {
    const trig = (await save({ cronSchedule: '* * * * *', input: { scope: 'vpn' } })).json();
    // The pass runs at a `now` an hour ahead, in the middle of a minute: the next run it sets
    // (the minute after) is then still ahead of the real clock when the trigger is read back, which
    // shows a past next run as the current time (a real `now` near a minute's end made this flaky).
    const minute = new Date((Math.floor(Date.now() / 60_000) + 60) * 60_000);
    const now = new Date(minute.getTime() + 30_000);
    await setNext(trig.id, new Date(minute.getTime() - 3 * 60_000)); // three minutes missed
    await scheduleDueCronTriggers(t.database.db, now);
    const runs = await runsOf(trig.id);
    expect(runs).toHaveLength(1);
    const run = await runOf(runs[0]!.id);
    expect(run.input).toEqual({ scope: 'vpn' });
    expect(run.triggerContext).toEqual({ source: 'cron', deliveryId: null, eventType: null, headers: {}, receivedAt: now.toISOString(), scheduledAt: minute.toISOString() });
    expect((await get(trig.id)).nextRunAt).toBe(new Date(minute.getTime() + 60_000).toISOString());
    await scheduleDueCronTriggers(t.database.db, now);
    expect(await runsOf(trig.id)).toHaveLength(1);
  });

  it('a worker starting ticks at once: the run due during the restart starts then, once, even with two workers starting together', async () => {
    const trig = (await save({ cronSchedule: '0 3 * * *', name: 'Nightly' })).json();
    await setNext(trig.id, new Date(Date.now() - 30_000));
    const logger = pino({ level: 'silent' });
    // An hour between ticks: only the tick at start can run it.
    const schedulers = [startScheduler({ db: t.database.db, logger, intervalMs: 3_600_000 }), startScheduler({ db: t.database.db, logger, intervalMs: 3_600_000 })];
    await Promise.all(schedulers.map((s) => s.stop())); // stop() waits for the tick in flight
    expect(await runsOf(trig.id)).toHaveLength(1);
    expect(Date.parse((await get(trig.id)).nextRunAt)).toBeGreaterThan(Date.now());
  });
});
