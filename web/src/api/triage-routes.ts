import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Body } from '../api';
import { resourceKeys } from '../query-keys';

/** Triage routes (`/api/alert-triage-routes`): one document per organization, read and replaced whole. */
export const triageRouteKeys = resourceKeys('triage-routes');

export function useTriageRoutes() {
  return useQuery({ queryKey: triageRouteKeys.all, queryFn: () => unwrap(api.GET('/api/alert-triage-routes')) });
}

/** Replaces the routes and defaults; the answer is the saved document, cached as it is. */
export function useSaveTriageRoutes() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'/api/alert-triage-routes', 'put'>) => unwrap(api.PUT('/api/alert-triage-routes', { body })),
    onSuccess: (d) => qc.setQueryData(triageRouteKeys.all, d),
  });
}

/** What intake would do with a sample alert under the given (maybe unsaved) routes; changes nothing. */
export function useSimulateTriageRoute() {
  return useMutation({ mutationFn: (body: Body<'/api/alert-triage-routes/simulate', 'post'>) => unwrap(api.POST('/api/alert-triage-routes/simulate', { body })) });
}
