import { z } from 'zod';
import { LimitOffsetQuery } from '../../platform/http/pagination.js';

export const UserSchema = z
  .object({
    id: z.uuid(),
    organizationId: z.uuid(),
    email: z.string(),
    name: z.string(),
    roleId: z.uuid(),
    roleName: z.string(),
    deactivated: z.boolean(),
    deactivatedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'User' });
export type UserDto = z.infer<typeof UserSchema>;

export const UserListQuery = LimitOffsetQuery;
export const UserList = z.object({ users: z.array(UserSchema), totalCount: z.number().int() });

export const CreateUserBody = z.strictObject({
  email: z.email().max(320),
  name: z.string().trim().min(1).max(255).optional(),
  roleId: z.uuid(),
});

export const UpdateUserBody = z
  .strictObject({
    name: z.string().trim().min(1).max(255).optional(),
    roleId: z.uuid().optional(),
    deactivated: z.boolean().optional().describe('true deactivates the user: all their API keys stop working (401)'),
  })
  // `when`: only once the fields are valid, so an unknown key is reported alone, not also as "nothing given".
  .refine((b) => Object.keys(b).length > 0, { message: 'Give at least one of name, roleId, deactivated', when: (p) => p.issues.length === 0 });
