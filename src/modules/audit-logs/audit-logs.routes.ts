import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { contextOf } from '../../platform/context.js';
import { LimitOffsetQuery } from '../../platform/http/pagination.js';
import { withErrors } from '../../platform/http/responses.js';
import type { Database } from '../../platform/db/database.js';
import { iso } from '../../platform/time.js';
import { auditFacets, listAuditLogs } from './audit-logs.repo.js';

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
    actorName: z.string().nullable().describe('Extension: the acting user\'s name (else email); null for the system or a deleted user'),
    resourceName: z.string().nullable().describe('Extension: the resource\'s name as recorded in `metadata.name`, else its current name (an alert: display id and title); null when unknown'),
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
      operationId: 'listAuditLogs',
      tags: ['Audit Logs'],
      summary: 'Audit log of the organization, newest first',
      querystring: Query,
      response: withErrors({ 200: z.object({ auditLogs: z.array(AuditLogSchema), totalCount: z.number().int() }) }),
    },
  }, async (req) => {
    const { organizationId } = contextOf(req).actor;
    const q = req.query;
    const { rows, totalCount } = await listAuditLogs(db, organizationId, q, q.limit, q.offset);
    return {
      auditLogs: rows.map((r) => ({ ...r, actorType: r.actorType as 'user' | 'system', createdAt: iso(r.createdAt) })),
      totalCount,
    };
  });

  app.get('/api/audit-logs/facets', {
    config: { permissions: ['audit.read'] },
    schema: {
      operationId: 'getAuditLogFacets',
      tags: ['Audit Logs'],
      summary: 'What the audit log can be filtered by: its actions, resource types and acting users',
      description: 'Extension, for filter pickers: the distinct `action` and `resourceType` values of the organization\'s log, and the users who appear in it as actors.',
      response: withErrors({ 200: z.object({ actions: z.array(z.string()), resourceTypes: z.array(z.string()), actors: z.array(z.object({ userId: z.uuid(), name: z.string() })) }) }),
    },
  }, async (req) => auditFacets(db, contextOf(req).actor.organizationId));
}
