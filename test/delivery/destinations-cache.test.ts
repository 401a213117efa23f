import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createAuthenticator } from '../../src/platform/auth/authenticator.js';
import { createInvalidationBus } from '../../src/platform/cache/invalidation-bus.js';
import { DestinationList } from '../../src/modules/destinations/destinations.schemas.js';
import { hasUrlSecrets, redactUrlSecrets } from '../../src/platform/outbound/url-secrets.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';
import { until } from '../support/until.js';

/**
 * The destinations listing is served from an in-process cache (src/platform/cache). These tests
 * prove it never answers with rows older than a committed change: at once in the process that
 * wrote, and as soon as the NOTIFY arrives in any other process on the same database.
 */
let t: TestContext;
let admin: Record<string, string>;
let reader: TestUser;
let dataDir: string;

/** "Another API process": its own app, caches, authenticator and LISTEN connection, same database. */
interface Instance {
  app: FastifyInstance;
  close(): Promise<void>;
}
const instances: Instance[] = [];

async function startInstance(listenPool: pg.Pool = t.database.pool): Promise<Instance> {
  const config = loadConfig({ RAMPART_DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: t.database.connectionString, RAMPART_RATE_LIMIT_PER_MINUTE: '0' });
  const bus = createInvalidationBus();
  const app = await buildApp(
    {
      config,
      database: t.database,
      logger: pino({ level: 'silent' }),
      authenticator: createAuthenticator(t.database.db, { bus }),
      secrets: t.secrets,
      invalidation: bus,
    },
    registerReference,
  );
  const stop = await bus.listen(listenPool);
  const instance = {
    app,
    async close() {
      await app.close();
      await stop();
    },
  };
  instances.push(instance);
  return instance;
}

/**
 * The listing as it was rendered before the cache: straight from the table, same response
 * schema and serializer (the authenticated actor's organization; tokens when `reveal=1`).
 */
function registerReference(root: FastifyInstance): void {
  const redactedUrls = (config: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(config).map(([k, v]) => [k, ['url', 'apiBaseUrl', 'tenantUrl'].includes(k) && typeof v === 'string' && hasUrlSecrets(v) ? redactUrlSecrets(v) : v]));
  root.withTypeProvider<ZodTypeProvider>().get('/api/test-reference/destinations', {
    schema: { querystring: z.object({ reveal: z.enum(['0', '1']) }), response: { 200: DestinationList } },
  }, async (req) => {
    const rows = await t.database.db
      .selectFrom('outputDestinations')
      .selectAll()
      .where('organizationId', '=', req.actor!.organizationId)
      .orderBy('createdAt')
      .orderBy('id')
      .execute();
    return rows.map((row) => {
      const dto = {
        id: row.id,
        organizationId: row.organizationId,
        name: row.name,
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
        type: row.type,
        // Credentials inside URLs are shown whole only to destination.manage.
        config: req.query.reveal === '1' ? row.config : redactedUrls(row.config),
        hasToken: row.tokenCiphertext !== null,
        // A webhook's Standard Webhooks signing secret: whether it has one, and the overlap's end while the previous one still signs.
        ...(row.type === 'webhook'
          ? {
              hasSigningSecret: row.signingSecretCiphertext !== null,
              previousSigningSecretExpiresAt:
                row.previousSigningSecretCiphertext && row.previousSigningSecretExpiresAt && row.previousSigningSecretExpiresAt > new Date() ? row.previousSigningSecretExpiresAt.toISOString() : null,
            }
          : {}),
        eventSubscriptions: row.eventSubscriptions,
        managedBy: row.managedBy,
        managedSource: row.managedSource,
      } as z.infer<typeof DestinationList>[number];
      if (req.query.reveal === '1' && row.tokenCiphertext) dto.token = t.secrets.decrypt(row.tokenCiphertext);
      return dto;
    });
  });
}

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_RATE_LIMIT_PER_MINUTE: '0' } }); // the tests below read in loops
  admin = bearer(t.orgA.apiKey.key);
  reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['destination.read']);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-cache-'));
});
afterAll(async () => {
  for (const i of instances) await i.close().catch(() => {});
  await t.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const slack = (name: string, token?: string) => ({ type: 'slack', name, config: { channelIds: ['C1'] }, ...(token ? { token } : {}) });

async function list(app: FastifyInstance, headers = admin) {
  const res = await app.inject({ url: '/api/output-destinations', headers });
  expect(res.statusCode).toBe(200);
  return res;
}
const names = async (app: FastifyInstance, headers = admin) => ((await list(app, headers)).json() as Array<{ name: string }>).map((d) => d.name);

/**
 * How this file polls until another instance has seen a change. The bound only turns a hang into a
 * failure: it stays far below the cache's 60 s lifetime (so only a notification, or a reconnect's
 * drop, can make the check pass), but it is not the 3 s a loaded machine could spend reconnecting a LISTEN.
 */
const polling = { timeoutMs: 15_000, everyMs: 10 };

describe('same process: read-after-write', () => {
  it('create, update and delete show in the very next list and get', async () => {
    const headers = bearer(t.orgB.apiKey.key);
    expect(await names(t.app, headers)).toEqual([]); // cached: empty

    const created = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers, payload: slack('one', 'xoxb-1') });
    expect(created.statusCode).toBe(200);
    const { id } = created.json() as { id: string };
    expect(await names(t.app, headers)).toEqual(['one']);
    expect((await t.app.inject({ url: `/api/output-destinations/${id}`, headers })).json()).toMatchObject({ name: 'one', token: 'xoxb-1' });

    const updated = await t.app.inject({ method: 'PUT', url: `/api/output-destinations/${id}`, headers, payload: slack('renamed', 'xoxb-2') });
    expect(updated.statusCode).toBe(200);
    expect(await names(t.app, headers)).toEqual(['renamed']);
    expect((await t.app.inject({ url: `/api/output-destinations/${id}`, headers })).json()).toMatchObject({ name: 'renamed', token: 'xoxb-2' });

    expect((await t.app.inject({ method: 'DELETE', url: `/api/output-destinations/${id}`, headers })).statusCode).toBe(200);
    expect(await names(t.app, headers)).toEqual([]);
    expect((await t.app.inject({ url: `/api/output-destinations/${id}`, headers })).statusCode).toBe(404);
  });

  it('stays right under concurrent reads: every list issued after a write returns sees it', async () => {
    const headers = bearer(t.orgB.apiKey.key);
    let stop = false;
    const readers = Array.from({ length: 4 }, async () => {
      // inject() answered from memory never leaves the microtask queue: yield so I/O runs.
      while (!stop) {
        await list(t.app, headers);
        await new Promise((r) => setImmediate(r));
      }
    });
    try {
      for (let i = 0; i < 10; i++) {
        const res = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers, payload: slack(`c${i}`) });
        expect(res.statusCode).toBe(200);
        expect(await names(t.app, headers)).toContain(`c${i}`);
      }
    } finally {
      stop = true;
      await Promise.all(readers);
    }
  });

  it('a cached answer is byte-identical to a fresh one, and never reveals tokens to a reader', async () => {
    const variants = [
      slack('secretive', 'xoxb-CANARY-42'),
      { type: 'webhook', name: 'hook "quoted" \u00e9', config: { url: 'https://hooks.example.com/in', authType: 'header', headerName: 'X-Key' }, token: 'whk-1' },
      { type: 'teams', name: 'Teams', config: { url: 'https://prod.workflows.example.com/x' } },
      { type: 'slack', name: 'Slack blocked', config: { channelIds: ['C1', 'C2'], configurationRevision: 3, blockedChannels: { C2: { reason: 'archived', blockedAt: '2026-01-01T00:00:00.000Z' } } }, token: 'xoxb-2' },
      { type: 'pagerduty', name: 'PD', config: { severity: 'critical' }, token: 'rk' },
      { type: 'linear', name: 'Linear', config: { teamId: 'T', labelIds: ['L1'], labelNames: ['sec'] }, token: 'lin' },
      { type: 'tines', name: 'Tines', config: { teamId: '42', teamName: 'SecOps' } },
    ];
    for (const payload of variants) expect((await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: admin, payload })).statusCode).toBe(200);
    const fresh = await startInstance(); // empty caches
    for (const headers of [admin, bearer(reader.key)]) {
      const first = await list(fresh.app, headers);
      const cached = await list(fresh.app, headers);
      const fromOther = await list(t.app, headers);
      expect(cached.body).toBe(first.body);
      expect(fromOther.body).toBe(first.body);
    }
    // And byte-identical to the listing rendered straight from the table (as before the cache).
    for (const [headers, reveal] of [[admin, '1'], [bearer(reader.key), '0']] as const) {
      const reference = await fresh.app.inject({ url: `/api/test-reference/destinations?reveal=${reveal}`, headers });
      expect(reference.statusCode).toBe(200);
      expect(JSON.parse(reference.body)).toHaveLength(JSON.parse((await list(fresh.app, headers)).body).length);
      expect((await list(fresh.app, headers)).body).toBe(reference.body);
    }
    // Admin first (tokens decrypted), then the reader: the shared entry holds no plaintext.
    expect((await list(fresh.app, admin)).body).toContain('xoxb-CANARY-42');
    expect((await list(fresh.app, bearer(reader.key))).body).not.toContain('xoxb-CANARY-42');
  });

  it('the listing kept as JSON per cache entry: the same bytes and headers as the schema serializer, tokens spliced in per response, rebuilt after a write', async () => {
    const headers = bearer(t.orgB.apiKey.key);
    const readerB = await userWithPermissions(t.database.db, t.orgB.organization.id, ['destination.read']);
    const created: string[] = [];
    const variants = [
      // Tokens JSON must escape (quote, backslash, control character, non-ASCII, astral), and one long enough for the serializer's other string path.
      slack('escapes', 'xoxb-"quoted"\\back\tslash-é-😀'),
      { type: 'teams', name: 'Teams with sig', config: { url: 'https://prod.workflows.example.com/x/workflows/1/triggers/manual/paths/invoke?api-version=1&sig=TEAMS-SIG-CANARY' } },
      { type: 'webhook', name: 'hook', config: { url: 'https://hooks.example.com/in?token=Q-CANARY&x=1', authType: 'bearer' }, token: 'w'.repeat(60) },
      { type: 'pagerduty', name: 'PD no token', config: { severity: 'info' } },
      { type: 'linear', name: 'Linear', config: { teamId: 'T' }, token: 'lin_api_1' },
    ];
    for (const payload of variants) {
      const res = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers, payload });
      expect(res.statusCode, res.body).toBe(200);
      created.push((res.json() as { id: string }).id);
    }
    const withReference = await startInstance(); // the reference route is registered on started instances
    const compareWithReference = async () => {
      for (const [h, reveal] of [[headers, '1'], [bearer(readerB.key), '0']] as const) {
        const reference = await withReference.app.inject({ url: `/api/test-reference/destinations?reveal=${reveal}`, headers: h });
        expect(reference.statusCode).toBe(200);
        for (let i = 0; i < 2; i++) {
          const res = await list(t.app, h); // the first builds the entry's JSON, the second reuses it
          expect(res.body).toBe(reference.body);
          for (const name of ['content-type', 'content-length']) expect(res.headers[name]).toBe(reference.headers[name]);
        }
      }
    };
    await compareWithReference();
    const managerBody = (await list(t.app, headers)).body;
    expect(managerBody).toContain('TEAMS-SIG-CANARY');
    expect(managerBody).toContain('Q-CANARY');
    const readerBody = (await list(t.app, bearer(readerB.key))).body;
    for (const secret of ['TEAMS-SIG-CANARY', 'Q-CANARY', 'xoxb-', 'lin_api_1', 'www']) expect(readerBody).not.toContain(secret);

    // A new token and a renamed destination show in the very next listing, for both callers.
    const put = await t.app.inject({ method: 'PUT', url: `/api/output-destinations/${created[4]}`, headers, payload: { type: 'linear', name: 'Linear 2', config: { teamId: 'T' }, token: 'lin_api_2' } });
    expect(put.statusCode, put.body).toBe(200);
    await compareWithReference();
    const after = (await list(t.app, headers)).json() as Array<{ name: string; token?: string }>;
    expect(after.find((d) => d.name === 'Linear 2')?.token).toBe('lin_api_2');
    expect(after.find((d) => d.name === 'escapes')?.token).toBe('xoxb-"quoted"\\back\tslash-é-😀');
    expect((await list(t.app, headers)).body).not.toContain('lin_api_1');
    for (const id of created) expect((await t.app.inject({ method: 'DELETE', url: `/api/output-destinations/${id}`, headers })).statusCode).toBe(200);
    await compareWithReference();
    expect((await list(t.app, headers)).body).not.toContain('Linear 2');
  });

  it('a failed update (404) changes nothing and leaves the cache usable', async () => {
    const before = (await list(t.app)).body;
    const missing = await t.app.inject({ method: 'PUT', url: '/api/output-destinations/0190a8e0-0000-7000-8000-000000000000', headers: admin, payload: slack('x') });
    expect(missing.statusCode).toBe(404);
    expect((await list(t.app)).body).toBe(before);
  });
});

describe('alert events: the subscription check is served from the same cache', () => {
  const deliveriesOf = async (app: FastifyInstance, id: string) => (await app.inject({ url: `/api/output-destinations/${id}/deliveries`, headers: admin })).json().totalCount as number;
  const newAlert = async (app: FastifyInstance, title: string) => {
    const res = await app.inject({ method: 'POST', url: '/api/alerts', headers: admin, payload: { title, severity: 'high' } });
    expect(res.statusCode, res.body).toBe(200);
  };

  it('an alert right after a subscription is added (or removed) is delivered (or not): in this process at once, in another once notified', async () => {
    const other = await startInstance();
    await newAlert(t.app, 'warms this process: nobody subscribed');
    await newAlert(other.app, 'warms the other process: nobody subscribed');
    const created = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: admin, payload: { ...slack('alerts'), eventSubscriptions: ['alert.created'] } });
    expect(created.statusCode, created.body).toBe(200);
    const { id } = created.json() as { id: string };
    await newAlert(t.app, 'subscribed here');
    expect(await deliveriesOf(t.app, id)).toBe(1);
    await until('an alert raised through the other instance to be delivered', async () => {
      await newAlert(other.app, 'subscribed there');
      return (await deliveriesOf(t.app, id)) >= 2;
    }, polling);

    const put = await t.app.inject({ method: 'PUT', url: `/api/output-destinations/${id}`, headers: admin, payload: { ...slack('alerts'), eventSubscriptions: [] } });
    expect(put.statusCode, put.body).toBe(200);
    const before = await deliveriesOf(t.app, id);
    await newAlert(t.app, 'unsubscribed');
    expect(await deliveriesOf(t.app, id)).toBe(before);
  });
});

describe('across processes: LISTEN/NOTIFY', () => {
  it('a write through one instance is seen by another that had the list cached', async () => {
    const a = await startInstance();
    const b = await startInstance();
    const before = await names(b.app); // cached in B
    const created = await a.app.inject({ method: 'POST', url: '/api/output-destinations', headers: admin, payload: slack('from A') });
    expect(created.statusCode).toBe(200);
    const { id } = created.json() as { id: string };
    await until('B to list the destination A created', async () => (await names(b.app)).includes('from A'), polling);
    expect(await names(b.app)).toEqual([...before, 'from A']);

    await b.app.inject({ method: 'PUT', url: `/api/output-destinations/${id}`, headers: admin, payload: slack('renamed by B') });
    await until('A to list the rename made through B', async () => (await names(a.app)).includes('renamed by B'), polling);
    expect((await a.app.inject({ url: `/api/output-destinations/${id}`, headers: admin })).json()).toMatchObject({ name: 'renamed by B' });

    await a.app.inject({ method: 'DELETE', url: `/api/output-destinations/${id}`, headers: admin });
    await until('B to answer 404 for the destination A deleted', async () => (await b.app.inject({ url: `/api/output-destinations/${id}`, headers: admin })).statusCode === 404, polling);
    expect(await names(b.app)).toEqual(before);
  });

  it('a notification drops only the organization written to', async () => {
    const b = await startInstance();
    const orgB = bearer(t.orgB.apiKey.key);
    await names(b.app);
    await names(b.app, orgB);
    // Org B's list is read from memory: prove it by changing the table behind the cache's back.
    await t.database.db.updateTable('outputDestinations').set({ name: 'changed behind the cache' }).where('organizationId', '=', t.orgB.organization.id).execute();
    const created = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: admin, payload: slack('org A change') });
    expect(created.statusCode).toBe(200);
    await until("B to list org A's new destination", async () => (await names(b.app)).includes('org A change'), polling);
    expect(await names(b.app, orgB)).not.toContain('changed behind the cache');
  });

  it('a lost LISTEN connection drops every cached list, and notifications work again after the reconnect', async () => {
    const listenPool = new pg.Pool({ connectionString: t.database.connectionString, max: 1, application_name: 'rampart-cache-test-listener' });
    try {
      const b = await startInstance(listenPool);
      await names(b.app); // cached
      await t.database.db.updateTable('outputDestinations').set({ name: 'missed while disconnected' }).where('organizationId', '=', t.orgA.organization.id).execute();
      expect(await names(b.app)).not.toContain('missed while disconnected');
      const { rows } = await t.database.pool.query(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'rampart-cache-test-listener'`);
      expect(rows).toHaveLength(1);
      await until('B to drop its lists when its LISTEN connection is lost', async () => (await names(b.app)).includes('missed while disconnected'), polling);

      // Reconnected (at once): a change through another instance reaches B again.
      await until('the LISTEN connection to reconnect', async () => {
        const { rows: l } = await t.database.pool.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = 'rampart-cache-test-listener'`);
        return l.length === 1;
      }, polling);
      await names(b.app);
      await new Promise((r) => setTimeout(r, 100)); // the LISTEN statement follows the connect
      await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: admin, payload: slack('after the reconnect') });
      await until('B to list a destination created after the reconnect', async () => (await names(b.app)).includes('after the reconnect'), polling);
    } finally {
      for (const i of instances.splice(0)) await i.close().catch(() => {});
      await listenPool.end();
    }
  });
});
