import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';

/** Model aliases (`/api/model-aliases`): what an agent's model may be. */
export const modelAliasKeys = {
  all: ['model-aliases'] as const,
};

export function useModelAliases() {
  return useQuery({ queryKey: modelAliasKeys.all, queryFn: () => unwrap(api.GET('/api/model-aliases')) });
}
