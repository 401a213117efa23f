import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { resourceKeys } from '../query-keys';

/** Model aliases (`/api/model-aliases`): what an agent's model may be. */
export const modelAliasKeys = resourceKeys('model-aliases');

export function useModelAliases() {
  return useQuery({ queryKey: modelAliasKeys.all, queryFn: () => unwrap(api.GET('/api/model-aliases')) });
}
