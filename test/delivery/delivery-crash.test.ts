import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { JobCatalog } from '../../src/platform/jobs/catalog.js';
import { startWorkers, type WorkerRunner } from '../../src/platform/jobs/runner.js';
import { createGuardedClient } from '../../src/platform/outbound/index.js';
import { createSecretBox } from '../../src/platform/secrets.js';
import { createOrganization } from '../../src/modules/organizations/organizations.service.js';
import { createDeliveryJob, newEvent, queueDeliveries } from '../../src/modules/delivery/index.js';
import { claimDelivery } from '../../src/modules/delivery/delivery.repo.js';
import { createTestDatabase } from '../support/db.js';
import { killNow, spawnLogged, untilOutput } from '../support/processes.js';
import { until } from '../support/until.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/fakes/webhook-receiver.js';

/**
 * No lost event on crash (issue 12): a worker process killed with SIGKILL while its delivery
 * is in flight. Another worker takes the job over once the dead one stops reporting, sends
 * again, and the receiver sees the same idempotency id (`webhook-id`) both times.
 */
const TOKEN = 'crash-test-signing-token';
const key = randomBytes(32);
let database: DatabaseHandle & { url: string };
let rx: WebhookReceiver;
let child: ChildProcess | null = null;
let worker: WorkerRunner | null = null;

beforeAll(async () => {
  database = await createTestDatabase();
  rx = await startWebhookReceiver({ secret: TOKEN });
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await worker?.stop();
  await rx?.close();
  await database?.close();
});

describe('a worker killed mid-delivery', () => {
  it('is replaced by another that sends the same event again, with the same webhook-id', async () => {
    const secrets = createSecretBox(key);
    const { organization } = await createOrganization(database.db, { name: 'Crash', adminEmail: 'crash@example.test' });
    const destinationId = uuidv7();
    const now = new Date();
    await database.db
      .insertInto('outputDestinations')
      // Signed with the token, as migration 0134 keeps a webhook created before signing secrets had their own.
      .values({ id: destinationId, organizationId: organization.id, name: 'Hook', type: 'webhook', config: JSON.stringify({ url: rx.url, authType: 'bearer' }), tokenCiphertext: secrets.encrypt(TOKEN), signingSecretCiphertext: secrets.encrypt(TOKEN), createdAt: now, updatedAt: now })
      .execute();

    const crashing = spawnLogged(process.execPath, ['--import', 'tsx', 'test/support/delivery-worker-child.ts'], {
      cwd: process.cwd(),
      env: { ...process.env, DELIVERY_TEST_DATABASE_URL: database.url, DELIVERY_TEST_SECRET_KEY: key.toString('hex') },
    });
    child = crashing.child;
    await untilOutput(crashing, 'the child worker to start', (output) => output.includes('ready'));

    // The receiver holds the first request open: the child is mid-send when it dies.
    rx.hangNext(1);
    const event = newEvent(organization.id, 'agent.message', { title: 'Crash', message: 'must not be lost' });
    const [queued] = await database.db.transaction().execute((tx) => queueDeliveries(tx, event, [destinationId]));
    await until('the child to send', () => rx.requests.length >= 1);
    await killNow(crashing);
    const row = await database.db.selectFrom('destinationDeliveries').select(['status', 'attemptCount']).where('id', '=', queued!.deliveryId).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'sending', attemptCount: 1 });

    const logger = pino({ level: 'silent' });
    worker = await startWorkers({
      db: database.db,
      pool: database.pool,
      catalog: new JobCatalog().register(createDeliveryJob({ db: database.db, secrets, http: createGuardedClient({ allowPrivateNetworks: true, retries: 0 }), logger, baseUrl: 'https://rampart.example.com' })),
      logger,
      concurrency: 2,
      heartbeatMs: 200,
      deadWorkerAfterMs: 1_500,
      pollIntervalMs: 100,
    });
    await until('the retried delivery to succeed', async () => {
      const r = await database.db.selectFrom('destinationDeliveries').select('status').where('id', '=', queued!.deliveryId).executeTakeFirst();
      return r?.status === 'succeeded';
    });
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id]);
    expect(rx.verified.map((v) => v.id)).toEqual([event.id]);
    const done = await database.db.selectFrom('destinationDeliveries').select(['status', 'attemptCount']).where('id', '=', queued!.deliveryId).executeTakeFirstOrThrow();
    expect(done).toEqual({ status: 'succeeded', attemptCount: 2 });
    // Both attempts are in the log (issue 35): the one the crash cut off, recorded before its send.
    const attempts = await database.db.selectFrom('destinationDeliveryAttempts').select(['attempt', 'outcome', 'responseStatus', 'durationMs']).where('deliveryId', '=', queued!.deliveryId).orderBy('attempt').execute();
    expect(attempts).toEqual([
      { attempt: 1, outcome: 'interrupted', responseStatus: null, durationMs: null },
      { attempt: 2, outcome: 'succeeded', responseStatus: 204, durationMs: expect.any(Number) },
    ]);
    // A child process to start on a loaded machine (tsx, then its first send), as in jobs.test.ts's
    // crash test: the waits above are on events, this only bounds a hang (the default 20 s is
    // what a child's start alone can take at load 15 on Node 24).
  }, 120_000);

  it('a delivery whose job failed for good mid-send ends failed, its attempt interrupted (issue 35)', async () => {
    // No worker here: the state below is what dead workers left.
    await worker?.stop();
    worker = null;
    const secrets = createSecretBox(key);
    const { organization } = await createOrganization(database.db, { name: 'Abandoned', adminEmail: 'abandoned@example.test' });
    const destinationId = uuidv7();
    const now = new Date();
    await database.db
      .insertInto('outputDestinations')
      // Signed with the token, as migration 0134 keeps a webhook created before signing secrets had their own.
      .values({ id: destinationId, organizationId: organization.id, name: 'Hook', type: 'webhook', config: JSON.stringify({ url: rx.url, authType: 'bearer' }), tokenCiphertext: secrets.encrypt(TOKEN), createdAt: now, updatedAt: now })
      .execute();
    const event = newEvent(organization.id, 'agent.message', { title: 'Abandoned', message: 'its worker died every time' });
    const [queued] = await database.db.transaction().execute((tx) => queueDeliveries(tx, event, [destinationId]));
    // The state a worker killed mid-send leaves: the delivery `sending`, its attempt recorded as `sending`.
    expect(await claimDelivery(database.db, queued!.deliveryId, new Date(), uuidv7())).toBeDefined();
    const job = createDeliveryJob({ db: database.db, secrets, http: createGuardedClient({ allowPrivateNetworks: true, retries: 0 }), logger: pino({ level: 'silent' }), baseUrl: 'https://rampart.example.com' });
    await job.onFailed!({ deliveryId: queued!.deliveryId }, 'The worker running this job stopped reporting (crashed or lost) and no attempt is left');
    const row = await database.db.selectFrom('destinationDeliveries').select(['status', 'error']).where('id', '=', queued!.deliveryId).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'failed', error: 'Delivery abandoned: The worker running this job stopped reporting (crashed or lost) and no attempt is left' });
    const attempts = await database.db.selectFrom('destinationDeliveryAttempts').select(['attempt', 'outcome']).where('deliveryId', '=', queued!.deliveryId).execute();
    expect(attempts).toEqual([{ attempt: 1, outcome: 'interrupted' }]);
  });
});
