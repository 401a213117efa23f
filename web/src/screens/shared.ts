import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';

/** Agents, for pickers (assign, routes, filters): the first 100. */
export function useAgents() {
  return useQuery({
    queryKey: ['agents', 'picker'],
    queryFn: async () => (await unwrap(api.GET('/api/agents', { params: { query: { limit: 100 } } }))).agents,
    staleTime: 30_000,
  });
}
