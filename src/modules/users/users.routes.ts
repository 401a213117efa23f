import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { IdParams } from '../../platform/http/pagination.js';
import { withErrors } from '../../platform/http/responses.js';
import { CreateUserBody, UpdateUserBody, UserList, UserListQuery, UserSchema } from './users.schemas.js';
import type { UsersService } from './users.service.js';

export function registerUsersRoutes(root: FastifyInstance, service: UsersService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Users'];
  const perms = { permissions: ['setting.users.manage' as const] };

  app.get('/api/users', {
    config: perms,
    schema: { operationId: 'listUsers', tags, summary: 'List the users of the organization', querystring: UserListQuery, response: withErrors({ 200: UserList }) },
  }, async (req) => service.list(contextOf(req), req.query.limit, req.query.offset));

  app.get('/api/users/:id', {
    config: perms,
    schema: { operationId: 'getUser', tags, summary: 'Get one user', params: IdParams, response: withErrors({ 200: UserSchema }, 404) },
  }, async (req) => service.get(contextOf(req), req.params.id));

  app.post('/api/users', {
    config: perms,
    schema: {
      operationId: 'createUser',
      tags,
      summary: 'Add a user to the organization with a role',
      description: 'The user signs in through API keys created for them (`POST /api/api-keys` with `userId`). Email is unique per organization, case-insensitively (409 otherwise). The caller must hold every permission of the role (403 otherwise).',
      body: CreateUserBody,
      response: withErrors({ 200: UserSchema }, 409),
    },
  }, async (req) => service.create(contextOf(req), req.body));

  app.patch('/api/users/:id', {
    config: perms,
    schema: {
      operationId: 'updateUser',
      tags,
      summary: 'Change a user\'s name or role, or (de)activate them',
      description: 'Deactivating a user makes every API key of theirs answer 401 at once; a role change applies to their keys at once. You cannot deactivate yourself or change your own role (400). The caller must hold every permission of a new role (403 otherwise).',
      params: IdParams,
      body: UpdateUserBody,
      response: withErrors({ 200: UserSchema }, 404),
    },
  }, async (req) => service.update(contextOf(req), req.params.id, req.body));
}
