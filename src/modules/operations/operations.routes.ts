import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { secretsEqual } from '../../platform/auth/secrets-equal.js';
import { publicResponses } from '../../platform/http/responses.js';
import type { ModuleDeps } from '../../platform/wiring.js';
import { registerSyncMetrics } from './sync-metrics.js';
import { registerInvalidationMetrics } from './invalidation-metrics.js';

const Health = z.object({ status: z.literal('ok') });
const Ready = z.object({
  status: z.enum(['ready', 'degraded']).describe('`degraded`: answers are right but slower, in-process caches are bypassed because cache invalidation is not heard (see `invalidation`)'),
  database: z.literal('ok'),
  migrations: z.literal('ok'),
  invalidation: z
    .enum(['ok', 'off', 'reconnecting', 'deaf'])
    .describe(
      'Cross-process cache invalidation (LISTEN/NOTIFY): `ok`; `off` (this process does not listen: a worker, or a single process); `reconnecting` (its connection was lost); `deaf` (connected, but its own heartbeat NOTIFY is not heard: a pooler not in session mode, a stuck server backend). Not `ok`: caches are bypassed until it is',
    ),
});

const METRICS_TOKEN_REQUIRED = 'Metrics require the metrics token: Authorization: Bearer <RAMPART_METRICS_TOKEN>';

/** Probes for orchestrators and monitoring; no API key (/metrics may require its own token). */
export function registerOperationsRoutes(root: FastifyInstance, deps: ModuleDeps): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Operations'];
  registerSyncMetrics(deps.metrics, deps.database.db);
  registerInvalidationMetrics(deps.metrics, deps.invalidation);

  app.get(
    '/healthz',
    { config: { public: true, rateLimit: 'none' as const }, schema: { operationId: 'getLiveness', tags, summary: 'Liveness: the process is up', security: [], response: publicResponses({ 200: Health }) } },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      config: { public: true, rateLimit: 'none' as const },
      schema: {
        operationId: 'getReadiness',
        tags,
        summary: 'Readiness: the database answers and migrations are applied',
        description:
          '503 while the database is unreachable or migrations have not run. 200 `degraded` while cache invalidation is not heard: the process still answers correctly (its caches are bypassed), so it stays in rotation; alert on it (`rampart_cache_invalidation_heard` in /metrics).',
        security: [],
        response: publicResponses({ 200: Ready }, 503),
      },
    },
    async (_request, reply) => {
      try {
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM kysely_migration`.execute(deps.database.db);
        if ((rows[0]?.n ?? 0) === 0) return reply.code(503).send({ error: 'Migrations have not run' });
        const invalidation = deps.invalidation?.health().state ?? 'off';
        const degraded = invalidation === 'deaf' || invalidation === 'reconnecting';
        return { status: degraded ? ('degraded' as const) : ('ready' as const), database: 'ok' as const, migrations: 'ok' as const, invalidation };
      } catch {
        return reply.code(503).send({ error: 'Database unreachable' });
      }
    },
  );

  app.get(
    '/metrics',
    {
      config: { public: true, rateLimit: 'none' as const },
      schema: {
        operationId: 'getMetrics',
        tags,
        summary: 'Prometheus metrics (text exposition format)',
        description:
          'No API key. When the operator sets RAMPART_METRICS_TOKEN, the scraper must send `Authorization: Bearer <that token>`; without it or with another value the answer is 401. ' +
          'Besides HTTP and process metrics: `rampart_agent_runs_active{status}`, `rampart_agent_runs_ended_24h{status}`, `rampart_jobs{task,state}`, `rampart_job_queue_depth{task}`, ' +
          '`rampart_job_queue_oldest_age_seconds{task}`, `rampart_intel_source_last_sync{source,kind,status}`, `rampart_intel_source_last_sync_age_seconds{source,kind}`, `rampart_deliveries{status}`, `rampart_cache_invalidation_heard`, `rampart_cache_invalidation_heartbeat_losses_total` (docs/operations.md).',
        security: [],
        produces: ['text/plain'],
        response: publicResponses({ 200: z.string().describe('Prometheus text format') }, 401),
      },
    },
    async (request, reply) => {
      const token = deps.config.metricsToken;
      if (token !== undefined) {
        const presented = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
        if (!secretsEqual(presented, token)) return reply.code(401).send({ error: METRICS_TOKEN_REQUIRED });
      }
      const body = await deps.metrics.metrics();
      return reply.type(deps.metrics.contentType).serializer((x) => x as string).send(body);
    },
  );
}
