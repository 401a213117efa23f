import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Body } from '../api';
import { resourceKeys } from '../query-keys';

/** Roles and their permissions (`/api/roles`). */
export const roleKeys = resourceKeys('roles');

export function useRoles() {
  return useQuery({ queryKey: roleKeys.all, queryFn: () => unwrap(api.GET('/api/roles')) });
}

/** Grants or takes away permissions of a custom role; the roles refetch whether it worked or not (the server's answer is the truth). */
export function useChangeRolePermissions(roleId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'/api/roles/{id}/perms', 'post'>) => unwrap(api.POST('/api/roles/{id}/perms', { params: { path: { id: roleId } }, body })),
    onSettled: () => qc.invalidateQueries({ queryKey: roleKeys.all }),
  });
}
