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

/**
 * The sources an alert can have, as routes and the queue's filter name them: its category
 * (`detection`, `trigger`, `agent`, `user`, `hunt`) and, for a trigger's alert, the trigger type.
 */
export const ALERT_SOURCES: readonly string[] = [
  'trigger', 'detection', 'agent', 'user', 'hunt',
  'webhook', 'jira', 'jira-automation', 'slack', 'linear', 'bugcrowd', 'hackerone', 'zscaler', 'darktrace', 'cron',
];
