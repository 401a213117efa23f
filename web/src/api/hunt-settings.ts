import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Body } from '../api';
import { resourceKeys } from '../query-keys';

/** When the hunt raises an alert (`/api/hunt/alert-creation-settings`): one document per organization. */
export const huntSettingsKeys = resourceKeys('hunt-alert-settings');

export function useHuntAlertSettings() {
  return useQuery({ queryKey: huntSettingsKeys.all, queryFn: () => unwrap(api.GET('/api/hunt/alert-creation-settings')) });
}

/** Replaces the settings; the answer is the saved document, cached as it is. */
export function useSaveHuntAlertSettings() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'/api/hunt/alert-creation-settings', 'put'>) => unwrap(api.PUT('/api/hunt/alert-creation-settings', { body })),
    onSuccess: (d) => qc.setQueryData(huntSettingsKeys.all, d),
  });
}
