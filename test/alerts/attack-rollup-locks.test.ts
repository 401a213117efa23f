import { sql } from 'kysely';
import type pg from 'pg';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { createOrganization } from '../../src/modules/organizations/organizations.service.js';
import { createTestDatabase } from '../support/db.js';
import { until } from '../support/until.js';

/**
 * Issue 46 point 5: two concurrent syncs of one organization writing items that name the same
 * ATT&CK techniques in different statements, in opposite orders. The rollups' triggers (migration
 * 0115) lock each technique's rows as a statement changes them: without an order across a
 * transaction's statements, the second sync's first statement took T1190 while the first held
 * T1059, then each waited for the other (deadlock). With the organization's advisory lock
 * (migration 0142) the second sync waits for the first to commit, and both land.
 */
let h: DatabaseHandle;
let c1: pg.PoolClient;
let c2: pg.PoolClient;
beforeAll(async () => {
  h = await createTestDatabase();
  c1 = await h.pool.connect();
  c2 = await h.pool.connect();
});
afterAll(async () => {
  c1?.release();
  c2?.release();
  await h?.close();
});

describe('ATT&CK rollups under concurrent syncs', () => {
  it('two transactions naming the same techniques in opposite orders both commit (no deadlock)', async () => {
    const { organization } = await createOrganization(h.db, { name: 'Rollups', adminEmail: 'rollups@example.test' });
    const sourceId = (
      await sql<{ id: string }>`
        INSERT INTO intel_sources (id, organization_id, name, display_name, kind, feed_url, schedule_cron, max_entries, created_at, updated_at)
        VALUES (${uuidv7()}, ${organization.id}, 'locks', 'Lock feed', 'rss', 'https://locks.example/feed', '0 * * * *', 100, now(), now()) RETURNING id`.execute(h.db)
    ).rows[0]!.id;
    const insertItem = (c: pg.PoolClient, technique: string, id = uuidv7()) =>
      c.query(
        `INSERT INTO intel_items (id, organization_id, source_id, external_id, title, language, content_text, content_hash, status, classification, published_at, created_at, updated_at)
         VALUES ($1::uuid, $2, $3, $4::text, 'Item', 'en', '', md5($4::text), 'active', $5::jsonb, now(), now(), now())`,
        [id, organization.id, sourceId, id, JSON.stringify({ attack: [{ technique, subTechnique: '' }], actor: [], malware: [] })],
      );
    const { rows: pid } = await c2.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');

    await c1.query('BEGIN');
    await c2.query('BEGIN');
    await insertItem(c1, 'T1059');
    let secondFirstDone = false;
    const second = (async () => {
      await insertItem(c2, 'T1190');
      secondFirstDone = true;
      await insertItem(c2, 'T1059');
      await c2.query('COMMIT');
    })();
    second.catch(() => {});
    // The second sync's first statement either waits (for the organization's lock) or is done.
    await until(
      'the second sync to wait for the lock, or be done',
      async () => {
        const { rows } = await h.pool.query<{ waiting: boolean }>(`SELECT wait_event_type = 'Lock' AS waiting FROM pg_stat_activity WHERE pid = $1`, [pid[0]!.pid]);
        return secondFirstDone || rows[0]?.waiting;
      },
      { everyMs: 10 },
    );
    const first = (async () => {
      await insertItem(c1, 'T1190');
      await c1.query('COMMIT');
    })();
    const outcomes = await Promise.allSettled([first, second]);
    const errors = outcomes.flatMap((o) => (o.status === 'rejected' ? [String((o.reason as Error).message)] : []));
    if (errors.length) await Promise.all([c1.query('ROLLBACK'), c2.query('ROLLBACK')]);
    expect(errors).toEqual([]);

    const { rows } = await h.pool.query<{ technique_id: string; items: number }>(
      `SELECT technique_id, items::int FROM intel_attack_sightings WHERE organization_id = $1 AND kind = 'technique' ORDER BY technique_id`,
      [organization.id],
    );
    expect(rows).toEqual([
      { technique_id: 'T1059', items: 2 },
      { technique_id: 'T1190', items: 2 },
    ]);
  }, 60_000);
});
