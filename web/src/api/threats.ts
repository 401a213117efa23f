import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Query } from '../api';
import { resourceKeys } from '../query-keys';

/** Hunt threats (`/api/threats`): the board's pages and one threat with its assessment. */
export const threatKeys = resourceKeys<Query<'/api/threats'>>('threats');

export function useThreats(query: Query<'/api/threats'>) {
  return useQuery({ queryKey: threatKeys.list(query), queryFn: () => unwrap(api.GET('/api/threats', { params: { query } })), placeholderData: (p) => p });
}

export function useThreat(id: string) {
  return useQuery({ queryKey: threatKeys.detail(id), queryFn: () => unwrap(api.GET('/api/threats/{id}', { params: { path: { id } } })) });
}

/** A change to one threat whose answer is the threat's new view, cached as it is. */
function useThreatChange<V>(id: string, call: (v: V) => Promise<unknown>) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: call, onSuccess: (d) => qc.setQueryData(threatKeys.detail(id), d) });
}

export const useDismissThreat = (id: string) => useThreatChange(id, (reason: string) => unwrap(api.POST('/api/threats/{id}/dismiss', { params: { path: { id } }, body: { reason } })));
export const useRestoreThreat = (id: string) => useThreatChange(id, () => unwrap(api.POST('/api/threats/{id}/restore', { params: { path: { id } } })));
export const useReassessThreat = (id: string) => useThreatChange(id, () => unwrap(api.POST('/api/threats/{id}/reassess', { params: { path: { id } } })));
