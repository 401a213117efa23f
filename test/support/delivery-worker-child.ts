/**
 * A worker process for the delivery crash test (test/delivery/delivery-crash.test.ts): the real
 * delivery job against DELIVERY_TEST_DATABASE_URL, decrypting tokens with the hex key in
 * DELIVERY_TEST_SECRET_KEY. The test kills it with SIGKILL while a send is in flight.
 *
 * Run as: node --import tsx test/support/delivery-worker-child.ts
 */
import pino from 'pino';
import { openDatabase } from '../../src/platform/db/database.js';
import { JobCatalog } from '../../src/platform/jobs/catalog.js';
import { startWorkers } from '../../src/platform/jobs/runner.js';
import { createGuardedClient } from '../../src/platform/outbound/index.js';
import { createSecretBox } from '../../src/platform/secrets.js';
import { createDeliveryJob } from '../../src/modules/delivery/index.js';

const url = process.env.DELIVERY_TEST_DATABASE_URL;
const key = process.env.DELIVERY_TEST_SECRET_KEY;
if (!url || !key) {
  process.stderr.write('DELIVERY_TEST_DATABASE_URL and DELIVERY_TEST_SECRET_KEY must be set\n');
  process.exit(2);
}
const database = openDatabase(url, { max: 5 });
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }, pino.destination(2));
const catalog = new JobCatalog().register(
  createDeliveryJob({
    db: database.db,
    secrets: createSecretBox(Buffer.from(key, 'hex')),
    http: createGuardedClient({ allowPrivateNetworks: true, retries: 0 }),
    logger,
    baseUrl: 'https://rampart.example.com',
    timeoutMs: 60_000,
  }),
);
await startWorkers({ db: database.db, pool: database.pool, catalog, logger, concurrency: 2, heartbeatMs: 200, deadWorkerAfterMs: 1_500, pollIntervalMs: 200 });
process.stdout.write('ready\n');
