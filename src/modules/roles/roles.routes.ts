import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { IdParams } from '../../platform/http/pagination.js';
import { withErrors } from '../../platform/http/responses.js';
import { ChangeRolePermsBody, CreateRoleBody, RoleList, RolePerms, RoleSchema, UpdateRoleBody } from './roles.schemas.js';
import type { RolesService } from './roles.service.js';

export function registerRolesRoutes(root: FastifyInstance, service: RolesService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Roles'];
  const manage = { permissions: ['setting.perms.manage' as const] };

  app.get('/api/roles', {
    schema: { operationId: 'listRoles', tags, summary: 'List roles (system and custom) with their permissions', description: 'Any member of the organization may read roles.', response: withErrors({ 200: RoleList }) },
  }, async (req) => ({ roles: await service.list(contextOf(req)) }));

  app.post('/api/roles', {
    config: manage,
    schema: { operationId: 'createRole', tags, summary: 'Create a custom role', description: 'The caller must hold every permission the role grants (403 naming the others).', body: CreateRoleBody, response: withErrors({ 200: RoleSchema }, 409) },
  }, async (req) => service.create(contextOf(req), req.body));

  app.put('/api/roles/:id', {
    config: manage,
    schema: { operationId: 'updateRole', tags, summary: 'Rename or describe a custom role', description: 'System roles answer 400.', params: IdParams, body: UpdateRoleBody, response: withErrors({ 200: RoleSchema }, 404, 409) },
  }, async (req) => service.update(contextOf(req), req.params.id, req.body));

  app.get('/api/roles/:id/perms', {
    schema: { operationId: 'listRolePermissions', tags, summary: 'The permissions of a role', params: IdParams, response: withErrors({ 200: RolePerms }, 404) },
  }, async (req) => {
    const role = await service.get(contextOf(req), req.params.id);
    return { roleId: role.id, permissions: role.permissions };
  });

  app.post('/api/roles/:id/perms', {
    config: manage,
    schema: {
      operationId: 'changeRolePermissions',
      tags,
      summary: 'Add and remove permissions of a custom role in one change',
      description: 'Body `{toAdd, toRemove}`: permission strings of the catalog. Takes effect for every key of the role\'s users at once. System roles answer 400. The caller must hold every permission in `toAdd` (403 naming the others).',
      params: IdParams,
      body: ChangeRolePermsBody,
      response: withErrors({ 200: RolePerms }, 404),
    },
  }, async (req) => service.changePermissions(contextOf(req), req.params.id, req.body));
}
