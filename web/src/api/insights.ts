import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Query } from '../api';
import { resourceKeys } from '../query-keys';

/** Insights (`/api/insights`): the figures over a time window. */
export const insightKeys = resourceKeys('insights').with((k) => ({
  window: (window: Query<'/api/insights'>['window']) => [...k.all, window] as const,
}));

export function useInsights(window: Query<'/api/insights'>['window']) {
  return useQuery({ queryKey: insightKeys.window(window), queryFn: () => unwrap(api.GET('/api/insights', { params: { query: { window } } })), placeholderData: (prev) => prev });
}
