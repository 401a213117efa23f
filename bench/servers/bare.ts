/**
 * Server B, the baseline: a bare Fastify 5 app with one route running the same Kysely query as
 * GET /api/output-destinations (listDestinationRows, over a pool of the same size as server A's),
 * answered with plain JSON.stringify. No auth, no hooks, no logging, no schemas. The
 * organization comes from BENCH_ORG_ID.
 *
 * With BENCH_STATIC=1 it is server C, the machine's ceiling: the same rows, read once at start
 * and answered from memory, so the difference between B and C is the database round trip.
 */
import Fastify from 'fastify';
import { openDatabase } from '../../src/platform/db/database.js';
import { listDestinationRows } from '../../src/modules/destinations/destinations.repo.js';
import { fatal, send, serveIpc } from './ipc.js';

async function main(): Promise<void> {
  const t0 = performance.now();
  const env = process.env;
  const orgId = env.BENCH_ORG_ID;
  if (!env.DATABASE_URL || !orgId) throw new Error('bench server B expects DATABASE_URL and BENCH_ORG_ID');
  const database = openDatabase(env.DATABASE_URL, { max: Number(env.BENCH_POOL_SIZE ?? 20) });
  const staticRows = env.BENCH_STATIC === '1' ? JSON.stringify(await listDestinationRows(database.db, orgId)) : null;
  const app = Fastify({ logger: false });
  app.get('/api/output-destinations', async (_req, reply) => {
    const body = staticRows ?? JSON.stringify(await listDestinationRows(database.db, orgId));
    return reply.type('application/json; charset=utf-8').send(body);
  });
  app.get('/readyz', async () => ({ status: 'ready' }));
  await app.listen({ port: Number(env.PORT ?? 0), host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  serveIpc(async () => {
    await app.close();
    await database.close();
  });
  send({ type: 'listening', port, startupMs: performance.now() - t0 });
}

main().catch(fatal);
