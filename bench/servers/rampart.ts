/**
 * Server A: the real Rampart API, wired as `rampart serve` wires it (src/main.ts): the shared
 * runtime (src/runtime.ts: pool of 20, secret box, authenticator, migrations check), buildApp,
 * the authenticator's LISTEN for cache invalidation, then listen. The parent gives it
 * DATABASE_URL (its embedded PostgreSQL), RAMPART_SECRET_KEY, PORT, LOG_LEVEL and
 * RAMPART_RATE_LIMIT_PER_MINUTE; the logger writes to stdout, which the parent points at a file.
 */
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/app.js';
import { createLogger } from '../../src/platform/logger.js';
import { openRuntime } from '../../src/runtime.js';
import { fatal, send, serveIpc } from './ipc.js';

async function main(): Promise<void> {
  const t0 = performance.now();
  const config = loadConfig();
  if (!config.databaseUrl) throw new Error('bench server A expects DATABASE_URL (the bench parent owns the embedded PostgreSQL)');
  const logger = createLogger(config.logLevel);
  const runtime = await openRuntime(config, logger);
  const app = await buildApp(runtime);
  const stopListening = await runtime.authenticator.listen(runtime.database.pool);
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ role: 'serve', url: config.baseUrl }, 'rampart ready');
  serveIpc(async () => {
    await app.close();
    await stopListening().catch(() => {});
    await runtime.close();
  });
  send({ type: 'listening', port, startupMs: performance.now() - t0 });
}

main().catch(fatal);
