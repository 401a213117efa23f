import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Query, type QueryOptions, type Schemas } from '../api';
import { resourceKeys } from '../query-keys';

/**
 * Output destinations (`/api/output-destinations`) and each one's delivery log. A destination's
 * own answer (its health: last delivery, failures in a row) and its log sit under its key.
 */
export const destinationKeys = resourceKeys('destinations').with((k) => ({
  deliveries: (id: string) => [...k.detail(id), 'deliveries'] as const,
  deliveryList: (id: string, query: Query<'/api/output-destinations/{id}/deliveries'>) => [...k.detail(id), 'deliveries', query] as const,
}));

const listDestinations = () => unwrap(api.GET('/api/output-destinations'));

export function useDestinations(options: QueryOptions<Awaited<ReturnType<typeof listDestinations>>> = {}) {
  return useQuery({ queryKey: destinationKeys.list(), queryFn: listDestinations, ...options });
}

/** Each destination's own answer (its delivery health), refreshed every 15 seconds. */
export function useDestinationHealth(ids: string[]) {
  return useQueries({
    queries: ids.map((id) => ({ queryKey: destinationKeys.detail(id), queryFn: () => unwrap(api.GET('/api/output-destinations/{id}', { params: { path: { id } } })), refetchInterval: 15_000 })),
  });
}

/** Creates (no id) or replaces a destination; the list refetches. */
export function useSaveDestination(id?: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['OutputDestinationWriteInput']) =>
      id ? unwrap(api.PUT('/api/output-destinations/{id}', { params: { path: { id } }, body })) : unwrap(api.POST('/api/output-destinations', { body })),
    onSuccess: () => void qc.invalidateQueries({ queryKey: destinationKeys.list() }),
  });
}

export function useDeliveries(id: string, query: Query<'/api/output-destinations/{id}/deliveries'>) {
  return useQuery({ queryKey: destinationKeys.deliveryList(id, query), queryFn: () => unwrap(api.GET('/api/output-destinations/{id}/deliveries', { params: { path: { id }, query } })) });
}

/** Sends a delivery again; the log refetches (the mutation settles once it has). */
export function useRedeliver(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) => unwrap(api.POST('/api/output-destinations/{id}/deliveries/{deliveryId}/redeliver', { params: { path: { id, deliveryId } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: destinationKeys.deliveries(id) }),
  });
}

/** Sends a test message; changes nothing cached. */
export function useTestDestination(id: string) {
  return useMutation({ mutationFn: () => unwrap(api.POST('/api/output-destinations/{id}/test', { params: { path: { id } } })) });
}
