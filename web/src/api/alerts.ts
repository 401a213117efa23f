import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Body, type Query, type QueryOptions } from '../api';
import { resourceKeys } from '../query-keys';

/**
 * Alerts (`/api/alerts`): the queue's pages and one alert with its timeline. A change to one
 * alert refreshes that alert; a change from the queue refreshes the queue's pages.
 */
export const alertKeys = resourceKeys<Query<'/api/alerts'>>('alerts');

export function useAlerts(query: Query<'/api/alerts'>) {
  return useQuery({ queryKey: alertKeys.list(query), queryFn: () => unwrap(api.GET('/api/alerts', { params: { query } })), placeholderData: (prev) => prev });
}

const getAlert = (alertId: string) => unwrap(api.GET('/api/alerts/{alertId}', { params: { path: { alertId } } }));

export function useAlert(alertId: string, options: QueryOptions<Awaited<ReturnType<typeof getAlert>>> = {}) {
  return useQuery({ queryKey: alertKeys.detail(alertId), queryFn: () => getAlert(alertId), ...options });
}

/** Refetches one alert (its status and timeline changed elsewhere, e.g. by its triage run). */
export function useRefreshAlert(alertId: string) {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: alertKeys.detail(alertId) });
}

export function useSetAlertStatus(alertId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'/api/alerts/{alertId}/status', 'post'>) => unwrap(api.POST('/api/alerts/{alertId}/status', { params: { path: { alertId } }, body })),
    onSuccess: () => void qc.invalidateQueries({ queryKey: alertKeys.detail(alertId) }),
  });
}

/** Settles once the alert has been refetched. */
export function useSetAlertSeverity(alertId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'/api/alerts/{alertId}/severity', 'post'>) => unwrap(api.POST('/api/alerts/{alertId}/severity', { params: { path: { alertId } }, body })),
    onSuccess: () => qc.invalidateQueries({ queryKey: alertKeys.detail(alertId) }),
  });
}

/** Assigns the alert to an agent, which triages it; settles once the alert has been refetched. */
export function useAssignAlert(alertId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'/api/alerts/{alertId}/assign', 'post'>) => unwrap(api.POST('/api/alerts/{alertId}/assign', { params: { path: { alertId } }, body })),
    onSuccess: () => qc.invalidateQueries({ queryKey: alertKeys.detail(alertId) }),
  });
}

export function useCommentOnAlert(alertId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'/api/alerts/{alertId}/comments', 'post'>) => unwrap(api.POST('/api/alerts/{alertId}/comments', { params: { path: { alertId } }, body })),
    onSuccess: () => void qc.invalidateQueries({ queryKey: alertKeys.detail(alertId) }),
  });
}

/** One status for many alerts (the queue's bulk action). */
export function useBulkAlertStatus() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'/api/alerts/bulk/status', 'post'>) => unwrap(api.POST('/api/alerts/bulk/status', { body })),
    onSuccess: () => void qc.invalidateQueries({ queryKey: alertKeys.lists() }),
  });
}

/** Escalates from the queue (its `e` key). */
export function useEscalateAlert() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (alertId: string) => unwrap(api.POST('/api/alerts/{alertId}/status', { params: { path: { alertId } }, body: { status: 'escalated', reason: 'Escalated from the queue' } })),
    onSuccess: () => void qc.invalidateQueries({ queryKey: alertKeys.lists() }),
  });
}
