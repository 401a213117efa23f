import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Body } from '../api';
import { resourceKeys } from '../query-keys';

/** The organization's OpenID Connect identity providers (`/api/identity-providers`). */
export const identityProviderKeys = resourceKeys('identity-providers');

export function useIdentityProviders(enabled: boolean) {
  return useQuery({ queryKey: identityProviderKeys.all, queryFn: () => unwrap(api.GET('/api/identity-providers')), enabled });
}

/** Creates a provider (no id) or changes one (PATCH: an empty client secret is left out, so the stored one stays). */
export function useSaveIdentityProvider(id?: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: Body<'/api/identity-providers', 'post'>) => {
      if (!id) return unwrap(api.POST('/api/identity-providers', { body }));
      const { clientSecret, ...rest } = body;
      return unwrap(api.PATCH('/api/identity-providers/{id}', { params: { path: { id } }, body: clientSecret ? body : rest }));
    },
    onSuccess: () => void qc.invalidateQueries({ queryKey: identityProviderKeys.all }),
  });
}

/** Deletes a provider; settles once the list has been refetched. */
export function useDeleteIdentityProvider(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/identity-providers/{id}', { params: { path: { id } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: identityProviderKeys.all }),
  });
}

/** Issues (or replaces) the provider's SCIM token, answered once; settles once the list has been refetched. */
export function useIssueScimToken(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.POST('/api/identity-providers/{id}/scim-token', { params: { path: { id } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: identityProviderKeys.all }),
  });
}
