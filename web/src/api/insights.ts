import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Query } from '../api';

/** Insights (`/api/insights`): the figures over a time window. */
export const insightKeys = {
  all: ['insights'] as const,
  window: (window: Query<'/api/insights'>['window']) => [...insightKeys.all, window] as const,
};

export function useInsights(window: Query<'/api/insights'>['window']) {
  return useQuery({ queryKey: insightKeys.window(window), queryFn: () => unwrap(api.GET('/api/insights', { params: { query: { window } } })), placeholderData: (prev) => prev });
}
