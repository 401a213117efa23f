import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Query } from '../api';
import { resourceKeys } from '../query-keys';

/** The audit log (`/api/audit-logs`): filtered pages and the values its filters offer. */
export const auditKeys = resourceKeys<Query<'/api/audit-logs'>>('audit-logs').with((k) => ({
  facets: () => [...k.all, 'facets'] as const,
}));

export function useAuditLogs(query: Query<'/api/audit-logs'>, enabled: boolean) {
  return useQuery({ queryKey: auditKeys.list(query), queryFn: () => unwrap(api.GET('/api/audit-logs', { params: { query } })), enabled });
}

export function useAuditFacets(enabled: boolean) {
  return useQuery({ queryKey: auditKeys.facets(), queryFn: () => unwrap(api.GET('/api/audit-logs/facets')), enabled, staleTime: 30_000 });
}
