import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { contextOf } from '../../platform/context.js';
import { LimitOffsetQuery } from '../../platform/http/pagination.js';
import { withErrors } from '../../platform/http/responses.js';
import type { Database } from '../../platform/db/database.js';
import { iso } from '../../platform/time.js';

const AuditLogSchema = z
  .object({
    id: z.uuid(),
    organizationId: z.uuid(),
    actorType: z.enum(['user', 'system']).describe('`system` is the operator (CLI, bootstrap)'),
    actorUserId: z.uuid().nullable(),
    actorApiKeyId: z.uuid().nullable(),
    action: z.string().describe('e.g. `destination.create`, `apiKey.revoke`'),
    resourceType: z.string(),
    resourceId: z.string().nullable(),
    requestId: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).describe('Non-secret details: names of changed fields, never secret values'),
    createdAt: z.string(),
  })
  .meta({ id: 'AuditLog' });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const Query = LimitOffsetQuery.extend({
  action: z.string().max(100).optional().describe('Exact action, e.g. `apiKey.create`'),
  resourceType: z.string().max(100).optional(),
  // Ids are written lowercased (as PostgreSQL prints uuids); an upper-case uuid finds them too.
  resourceId: z
    .string()
    .max(200)
    .optional()
    .transform((v) => (v !== undefined && UUID.test(v) ? v.toLowerCase() : v)),
  actorUserId: z.uuid().optional(),
});

export function registerAuditLogsModule(root: FastifyInstance, deps: { database: { db: Database } }): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { db } = deps.database;
  app.get('/api/audit-logs', {
    config: { permissions: ['audit.read'] },
    schema: {
      tags: ['Audit Logs'],
      summary: 'Audit log of the organization, newest first',
      querystring: Query,
      response: withErrors({ 200: z.object({ auditLogs: z.array(AuditLogSchema), totalCount: z.number().int() }) }),
    },
  }, async (req) => {
    const { organizationId } = contextOf(req).actor;
    const q = req.query;
    let base = db.selectFrom('auditLogs').where('organizationId', '=', organizationId);
    if (q.action) base = base.where('action', '=', q.action);
    if (q.resourceType) base = base.where('resourceType', '=', q.resourceType);
    if (q.resourceId) base = base.where('resourceId', '=', q.resourceId);
    if (q.actorUserId) base = base.where('actorUserId', '=', q.actorUserId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return {
      auditLogs: rows.map((r) => ({ ...r, actorType: r.actorType as 'user' | 'system', createdAt: iso(r.createdAt) })),
      totalCount: Number(count.n),
    };
  });
}
