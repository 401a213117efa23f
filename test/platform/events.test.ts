import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { createEventBus, type OutboundEvent } from '../../src/platform/events.js';
// `run.ended` is declared by the runs module (declaration merging), loaded with the service's bus.
import type {} from '../../src/events.js';
import { createTestApp, type TestContext } from '../support/app.js';

/**
 * The domain-event bus (platform/events.ts): subscribers of one event run in subscription order
 * inside the writer's transaction, their answers merged; a rolled-back transaction leaves nothing
 * of what they did.
 */
let t: TestContext;

beforeAll(async () => {
  t = await createTestApp();
  await sql`CREATE TABLE event_bus_log (seq bigserial PRIMARY KEY, subscriber text NOT NULL, event_id text NOT NULL)`.execute(t.database.db);
});
afterAll(async () => {
  await t?.close();
});

const bus = createEventBus([
  { 'alert.created': async (tx, e) => void (await sql`INSERT INTO event_bus_log (subscriber, event_id) VALUES ('first', ${e.id})`.execute(tx)) },
  {
    'alert.created': async (tx, e) => {
      // The second sees the first's write: same transaction, after it.
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM event_bus_log WHERE event_id = ${e.id}`.execute(tx);
      await sql`INSERT INTO event_bus_log (subscriber, event_id) VALUES (${`second after ${rows[0]!.n}`}, ${e.id})`.execute(tx);
    },
  },
]);

const newEventForTest = (organizationId: string): OutboundEvent => ({ id: uuidv7(), type: 'alert.created', occurredAt: new Date().toISOString(), organizationId, data: {} });

const logOf = async (eventId: string) =>
  (await sql<{ subscriber: string }>`SELECT subscriber FROM event_bus_log WHERE event_id = ${eventId} ORDER BY seq`.execute(t.database.db)).rows.map((r) => r.subscriber);

describe('domain events', () => {
  it('runs every subscriber of an event, in subscription order, in the writer transaction', async () => {
    const event = newEventForTest(t.orgA.organization.id);
    await t.database.db.transaction().execute((tx) => bus.emit(tx, 'alert.created', event));
    expect(await logOf(event.id)).toEqual(['first', 'second after 1']);
    expect(bus.has('alert.created')).toBe(true);
    expect(bus.has('alert.status_changed')).toBe(false);
  });

  it('emits nothing from a rolled-back transaction', async () => {
    const event = newEventForTest(t.orgA.organization.id);
    await expect(
      t.database.db.transaction().execute(async (tx) => {
        await bus.emit(tx, 'alert.created', event);
        throw new Error('the writer fails after emitting');
      }),
    ).rejects.toThrow('the writer fails after emitting');
    expect(await logOf(event.id)).toEqual([]);
  });

  it('acts: false only when every subscriber of the type says it would not act for the organization', async () => {
    const org = t.orgA.organization.id;
    const quiet = Object.assign(async () => undefined, { acts: async (_q: unknown, organizationId: string) => organizationId !== org });
    expect(await createEventBus([{ 'alert.created': quiet }]).acts(t.database.db, 'alert.created', org)).toBe(false);
    expect(await createEventBus([{ 'alert.created': quiet }]).acts(t.database.db, 'alert.created', '0190a8e0-0000-7000-8000-000000000000')).toBe(true);
    // A subscriber that cannot tell is assumed to act.
    expect(await createEventBus([{ 'alert.created': quiet }, { 'alert.created': async () => undefined }]).acts(t.database.db, 'alert.created', org)).toBe(true);
    expect(await createEventBus([]).acts(t.database.db, 'alert.created', org)).toBe(false);
  });

  it("merges the subscribers' answers, later ones over earlier ones", async () => {
    const answering = createEventBus([
      { 'run.ended': async () => ({ alert: 'a', verdict: 'first' }) },
      { 'run.ended': async () => ({ verdict: 'second' }) },
      { 'run.ended': async () => undefined },
    ]);
    const reply = await t.database.db.transaction().execute((tx) =>
      answering.emit(tx, 'run.ended', { runId: 'r', organizationId: t.orgA.organization.id, agentId: 'a', agentName: 'A', triggerId: null, mode: 'async', status: 'done', statusMessage: null, finalAssistantMessage: '' }),
    );
    expect(reply).toEqual({ alert: 'a', verdict: 'second' });
    expect(await t.database.db.transaction().execute((tx) => createEventBus([]).emit(tx, 'alert.created', newEventForTest(t.orgA.organization.id)))).toEqual({});
  });
});
