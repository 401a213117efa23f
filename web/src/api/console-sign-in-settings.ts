import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { resourceKeys } from '../query-keys';

/** Whether API keys may open a console session (`/api/console-sign-in-settings`): one document per organization. */
export const signInSettingsKeys = resourceKeys('console-sign-in-settings');

export function useSignInSettings() {
  return useQuery({ queryKey: signInSettingsKeys.all, queryFn: () => unwrap(api.GET('/api/console-sign-in-settings')) });
}

/** Turns API-key sign-in on or off; the answer is the saved document, cached as it is. */
export function useSetApiKeySignIn() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (apiKeySignIn: boolean) => unwrap(api.PUT('/api/console-sign-in-settings', { body: { apiKeySignIn } })),
    onSuccess: (data) => qc.setQueryData(signInSettingsKeys.all, data),
  });
}
