import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Body, type Query, type QueryOptions } from '../api';
import { resourceKeys } from '../query-keys';

/** Users of the organization (`/api/users`). */
export const userKeys = resourceKeys<Query<'/api/users'>>('users');

const listUsers = (query: Query<'/api/users'>) => unwrap(api.GET('/api/users', { params: { query } }));

export function useUsers(query: Query<'/api/users'>, options: QueryOptions<Awaited<ReturnType<typeof listUsers>>> = {}) {
  return useQuery({ queryKey: userKeys.list(query), queryFn: () => listUsers(query), ...options });
}

export function useCreateUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'/api/users', 'post'>) => unwrap(api.POST('/api/users', { body })),
    onSuccess: () => void qc.invalidateQueries({ queryKey: userKeys.lists() }),
  });
}
