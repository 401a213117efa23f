import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { resourceKeys } from '../query-keys';

/** The tools agents may use (`/api/tools`): built-in and each MCP server's. */
export const toolKeys = resourceKeys('tools');

/** The catalog, when the user may read it (tool.read); it changes rarely: fresh for 30 s. */
export function useTools(enabled: boolean) {
  return useQuery({ queryKey: toolKeys.all, queryFn: () => unwrap(api.GET('/api/tools')), enabled, staleTime: 30_000 });
}
