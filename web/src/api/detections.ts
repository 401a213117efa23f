import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Query } from '../api';

/** Code detections (`/api/code-detections`): the picker and each detection's recent activity. */
export const detectionKeys = {
  all: ['code-detections'] as const,
  lists: () => [...detectionKeys.all, 'list'] as const,
  // The picker caches the detections alone, not a page.
  picker: () => [...detectionKeys.lists(), 'picker'] as const,
  details: () => [...detectionKeys.all, 'detail'] as const,
  activity: (id: string, query: Query<'/api/code-detections/{id}/activity'>) => [...detectionKeys.details(), id, 'activity', query] as const,
};

/** Code detections, for the route condition that names them: the first 200. */
export function useCodeDetections() {
  return useQuery({
    queryKey: detectionKeys.picker(),
    queryFn: async () => (await unwrap(api.GET('/api/code-detections', { params: { query: { limit: 200 } } }))).codeDetections,
    staleTime: 30_000,
  });
}

/** A detection's last match and matches per day over the last 30 days (no sample events). */
export function useDetectionActivity(id: string) {
  const query = { days: 30, samples: 0 };
  return useQuery({ queryKey: detectionKeys.activity(id, query), queryFn: () => unwrap(api.GET('/api/code-detections/{id}/activity', { params: { path: { id }, query } })) });
}
