import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Query } from '../api';
import { resourceKeys } from '../query-keys';

/** ATT&CK coverage (`/api/coverage/attack`): the matrix for a window and filters, and one technique in it. */
export const coverageKeys = resourceKeys('coverage').with((k) => ({
  report: (query: Query<'/api/coverage/attack'>) => [...k.all, 'report', query] as const,
  technique: (techniqueId: string, query: Query<'/api/coverage/attack/techniques/{techniqueId}'>) => [...k.all, 'technique', techniqueId, query] as const,
}));

export function useCoverage(query: Query<'/api/coverage/attack'>) {
  return useQuery({ queryKey: coverageKeys.report(query), queryFn: () => unwrap(api.GET('/api/coverage/attack', { params: { query } })), placeholderData: (prev) => prev });
}

export function useCoverageTechnique(techniqueId: string, query: Query<'/api/coverage/attack/techniques/{techniqueId}'>) {
  return useQuery({
    queryKey: coverageKeys.technique(techniqueId, query),
    queryFn: () => unwrap(api.GET('/api/coverage/attack/techniques/{techniqueId}', { params: { path: { techniqueId }, query } })),
  });
}
