import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Body } from '../api';
import { resourceKeys } from '../query-keys';

/** Intel sources (`/sources`). */
export const sourceKeys = resourceKeys('sources');

/** The sources; polled while a sync (a background job) is queued or running. */
export function useSources() {
  return useQuery({
    queryKey: sourceKeys.list(),
    queryFn: () => unwrap(api.GET('/sources')),
    refetchInterval: (q) => ((q.state.data?.sources ?? []).some((s) => s.syncJob?.status === 'pending' || s.syncJob?.status === 'running') ? 1500 : false),
  });
}

/** Queues a sync; settles once the sources have been refetched (showing the queued job). */
export function useSyncSource() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => unwrap(api.POST('/sources/{id}/sync', { params: { path: { id } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: sourceKeys.all }),
  });
}

export function useAddSource() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'/sources', 'post'>) => unwrap(api.POST('/sources', { body })),
    onSuccess: () => void qc.invalidateQueries({ queryKey: sourceKeys.all }),
  });
}
