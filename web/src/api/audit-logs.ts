import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Query } from '../api';

/** The audit log (`/api/audit-logs`): filtered pages and the values its filters offer. */
export const auditKeys = {
  all: ['audit-logs'] as const,
  list: (query: Query<'/api/audit-logs'>) => [...auditKeys.all, 'list', query] as const,
  facets: () => [...auditKeys.all, 'facets'] as const,
};

export function useAuditLogs(query: Query<'/api/audit-logs'>, enabled: boolean) {
  return useQuery({ queryKey: auditKeys.list(query), queryFn: () => unwrap(api.GET('/api/audit-logs', { params: { query } })), enabled });
}

export function useAuditFacets(enabled: boolean) {
  return useQuery({ queryKey: auditKeys.facets(), queryFn: () => unwrap(api.GET('/api/audit-logs/facets')), enabled, staleTime: 30_000 });
}
