import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { publicResponses } from '../../platform/http/responses.js';
import type { ModuleDeps } from '../index.js';

const Health = z.object({ status: z.literal('ok') });
const Ready = z.object({ status: z.enum(['ready']), database: z.literal('ok'), migrations: z.literal('ok') });

/** Probes for orchestrators and monitoring; no API key. */
export function registerOperationsRoutes(root: FastifyInstance, deps: ModuleDeps): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Operations'];

  app.get(
    '/healthz',
    { config: { public: true }, schema: { tags, summary: 'Liveness: the process is up', security: [], response: publicResponses({ 200: Health }) } },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Readiness: the database answers and migrations are applied',
        security: [],
        response: publicResponses({ 200: Ready }, 503),
      },
    },
    async (_request, reply) => {
      try {
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM kysely_migration`.execute(deps.database.db);
        if ((rows[0]?.n ?? 0) === 0) return reply.code(503).send({ error: 'Migrations have not run' });
        return { status: 'ready' as const, database: 'ok' as const, migrations: 'ok' as const };
      } catch {
        return reply.code(503).send({ error: 'Database unreachable' });
      }
    },
  );

  app.get(
    '/metrics',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Prometheus metrics (text exposition format)',
        security: [],
        produces: ['text/plain'],
        response: publicResponses({ 200: z.string().describe('Prometheus text format') }),
      },
    },
    async (_request, reply) => {
      const body = await deps.metrics.metrics();
      return reply.type(deps.metrics.contentType).serializer((x) => x as string).send(body);
    },
  );
}
