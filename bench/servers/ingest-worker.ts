/**
 * One worker process of the production layout for bench/ingest-scale.bench.ts: the service's own
 * job catalog (buildJobCatalog, as `rampart worker` builds it) on graphile-worker against the
 * bench's PostgreSQL (DATABASE_URL), RAMPART_WORKER_CONCURRENCY jobs at once, no scheduler (no
 * built-in source syncs beside the measured one). Prints `ready` when it takes jobs; SIGTERM stops
 * it after its running jobs.
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { buildJobCatalog } from '../../src/jobs.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { startWorkers } from '../../src/platform/jobs/runner.js';
import { createGuardedClient } from '../../src/platform/outbound/index.js';
import { createSecretBox } from '../../src/platform/secrets.js';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is not set');
const logger = pino({ level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));
const database = openDatabase(url, { max: 20 });
const catalog = buildJobCatalog({
  db: database.db,
  secrets: createSecretBox(randomBytes(32)), // the bench's source has no credential
  http: createGuardedClient({ allowPrivateNetworks: true, timeoutMs: 600_000 }),
  logger,
  osvShardRecords: Number(process.env.RAMPART_OSV_SHARD_RECORDS ?? 10_000),
});
const workers = await startWorkers({ db: database.db, pool: database.pool, catalog, logger, concurrency: Number(process.env.RAMPART_WORKER_CONCURRENCY ?? 4), pollIntervalMs: 200 });
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void workers.stop().then(() => database.close()).then(() => process.exit(0));
});
