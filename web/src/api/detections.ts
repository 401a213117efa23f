import { useQuery } from '@tanstack/react-query';
import { api, ApiError, unwrap, type Query } from '../api';
import { resourceKeys } from '../query-keys';

/** Code detections (`/api/code-detections`): the list and picker, a detection, its activity, tests, noisiest fields and SIEM queries. */
export const detectionKeys = resourceKeys<Query<'/api/code-detections'>>('code-detections').with((k) => ({
  // The picker caches the detections alone, not a page.
  picker: () => [...k.lists(), 'picker'] as const,
  activity: (id: string, query: Query<'/api/code-detections/{id}/activity'>) => [...k.detail(id), 'activity', query] as const,
  tests: (id: string) => [...k.detail(id), 'tests'] as const,
  noisyFields: (id: string, query: Query<'/api/code-detections/{id}/noisy-fields'>) => [...k.detail(id), 'noisy-fields', query] as const,
  query: (id: string, query: Query<'/api/code-detections/{id}/query'>) => [...k.detail(id), 'query', query] as const,
}));

/** A page of code detections. */
export function useDetectionList(query: Query<'/api/code-detections'>) {
  return useQuery({ queryKey: detectionKeys.list(query), queryFn: () => unwrap(api.GET('/api/code-detections', { params: { query } })) });
}

/** One code detection. */
export function useDetection(id: string) {
  return useQuery({ queryKey: detectionKeys.detail(id), queryFn: () => unwrap(api.GET('/api/code-detections/{id}', { params: { path: { id } } })) });
}

/** The detection's `tests:` run on each read (GET …/tests). */
export function useDetectionTests(id: string) {
  return useQuery({ queryKey: detectionKeys.tests(id), queryFn: () => unwrap(api.GET('/api/code-detections/{id}/tests', { params: { path: { id } } })) });
}

/** The rule fields that matched most in the latest matched events. */
export function useDetectionNoisyFields(id: string, query: Query<'/api/code-detections/{id}/noisy-fields'>) {
  return useQuery({ queryKey: detectionKeys.noisyFields(id, query), queryFn: () => unwrap(api.GET('/api/code-detections/{id}/noisy-fields', { params: { path: { id }, query } })) });
}

/** The rule as a query of a SIEM's language. */
export function useDetectionQuery(id: string, query: Query<'/api/code-detections/{id}/query'>) {
  return useQuery({
    queryKey: detectionKeys.query(id, query),
    queryFn: () => unwrap(api.GET('/api/code-detections/{id}/query', { params: { path: { id }, query } })),
    // A 422 is an answer about the rule, not a failure to retry.
    retry: (n, err) => !(err instanceof ApiError && err.status < 500) && n < 2,
  });
}

/** Code detections, for the route condition that names them: the first 200. */
export function useCodeDetections() {
  return useQuery({
    queryKey: detectionKeys.picker(),
    queryFn: async () => (await unwrap(api.GET('/api/code-detections', { params: { query: { limit: 200 } } }))).codeDetections,
    staleTime: 30_000,
  });
}

/** A detection's last match and matches per day over the last 30 days (no sample events). */
export function useDetectionActivity(id: string, query: Query<'/api/code-detections/{id}/activity'> = { days: 30, samples: 0 }) {
  return useQuery({ queryKey: detectionKeys.activity(id, query), queryFn: () => unwrap(api.GET('/api/code-detections/{id}/activity', { params: { path: { id }, query } })) });
}
