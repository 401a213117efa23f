import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Query, type QueryOptions } from '../api';
import { resourceKeys } from '../query-keys';

/** The organization's API keys (`/api/api-keys`). */
export const apiKeyKeys = resourceKeys<Query<'/api/api-keys'>>('api-keys');

const listApiKeys = (query: Query<'/api/api-keys'>) => unwrap(api.GET('/api/api-keys', { params: { query } }));

export function useApiKeys(query: Query<'/api/api-keys'>, options: QueryOptions<Awaited<ReturnType<typeof listApiKeys>>> = {}) {
  return useQuery({ queryKey: apiKeyKeys.list(query), queryFn: () => listApiKeys(query), ...options });
}

/** Creates a key; its secret is in the answer only (shown once). */
export function useCreateApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => unwrap(api.POST('/api/api-keys', { body: { name } })),
    onSuccess: () => void qc.invalidateQueries({ queryKey: apiKeyKeys.all }),
  });
}

/** Revokes a key; settles once the list has been refetched. */
export function useRevokeApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: apiKeyKeys.all }),
  });
}
