import { z } from 'zod';
import { PERMISSIONS } from '../../platform/auth/permissions.js';

export const PermissionSchema = z.enum(PERMISSIONS, { error: `must be one of: ${PERMISSIONS.join(', ')}` });

export const RoleSchema = z
  .object({
    id: z.uuid(),
    organizationId: z.uuid(),
    name: z.string(),
    description: z.string(),
    permissions: z.array(z.string()),
    isSystem: z.boolean().describe('System roles (Super Admin, Analyst) cannot be changed'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Role' });
export type RoleDto = z.infer<typeof RoleSchema>;

export const RoleList = z.object({ roles: z.array(RoleSchema) });

export const CreateRoleBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  description: z.string().max(1000).optional(),
  permissions: z.array(PermissionSchema).default([]),
});

export const UpdateRoleBody = z
  .strictObject({ name: z.string().trim().min(1).max(100).optional(), description: z.string().max(1000).optional() })
  // `when`: only once the fields are valid, so an unknown key is reported alone, not also as "nothing given".
  .refine((b) => b.name !== undefined || b.description !== undefined, { message: 'Give name or description', when: (p) => p.issues.length === 0 });

export const RolePerms = z.object({ roleId: z.uuid(), permissions: z.array(z.string()) });

export const ChangeRolePermsBody = z
  .strictObject({
    toAdd: z.array(PermissionSchema).default([]),
    toRemove: z.array(PermissionSchema).default([]),
  })
  .refine((b) => !b.toAdd.some((p) => b.toRemove.includes(p)), {
    message: 'A permission cannot be both added and removed',
    path: ['toRemove'],
    when: (p) => p.issues.length === 0,
  });
