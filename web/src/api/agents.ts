import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Body, type Query, type QueryOptions } from '../api';
import { resourceKeys } from '../query-keys';

/**
 * Agents (`/api/agents`) and their versions: the query keys and the hooks screens use.
 * Keys nest (all → lists | details → one agent → its versions), so a save invalidates every
 * list at once and leaves the agent it just put in the cache alone.
 */
export const agentKeys = resourceKeys<Query<'/api/agents'>>('agents').with((k) => ({
  // Its own key: the picker caches the agents alone, not the page a list caches.
  picker: () => [...k.lists(), 'picker'] as const,
  versions: (agentId: string) => [...k.detail(agentId), 'versions'] as const,
  // The current version is in the key: a save or restore refetches the list.
  versionList: (agentId: string, current: number, page: number) => [...k.detail(agentId), 'versions', 'list', { current, page }] as const,
  versionDocument: (agentId: string, version: number) => [...k.detail(agentId), 'versions', 'document', version] as const,
  versionDiff: (agentId: string, version: number, against: number) => [...k.detail(agentId), 'versions', 'diff', { version, against }] as const,
}));

type AgentList = Awaited<ReturnType<typeof listAgents>>;
const listAgents = (query: Query<'/api/agents'>) => unwrap(api.GET('/api/agents', { params: { query } }));

export function useAgentList(query: Query<'/api/agents'>, options: QueryOptions<AgentList> = {}) {
  return useQuery({ queryKey: agentKeys.list(query), queryFn: () => listAgents(query), ...options });
}

/** Agents, for pickers (assign, routes, filters): the first 100. */
export function useAgents() {
  return useQuery({ queryKey: agentKeys.picker(), queryFn: async () => (await listAgents({ limit: 100 })).agents, staleTime: 30_000 });
}

type Agent = Awaited<ReturnType<typeof getAgent>>;
const getAgent = (agentId: string) => unwrap(api.GET('/api/agents/{agentId}', { params: { path: { agentId } } }));

export function useAgent(agentId: string, options: QueryOptions<Agent> = {}) {
  return useQuery({ queryKey: agentKeys.detail(agentId), queryFn: () => getAgent(agentId), ...options });
}

/** Creates the agent (no id) or replaces it (PUT); the saved agent goes into the cache as it is. */
export function useSaveAgent(agentId?: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'/api/agents', 'post'>) =>
      agentId ? unwrap(api.PUT('/api/agents/{agentId}', { params: { path: { agentId } }, body })) : unwrap(api.POST('/api/agents', { body })),
    onSuccess: (saved) => {
      void qc.invalidateQueries({ queryKey: agentKeys.lists() });
      qc.setQueryData(agentKeys.detail(saved.id), saved);
    },
  });
}

export function useAgentVersions(agentId: string, current: number, page: number, perPage: number) {
  return useQuery({
    queryKey: agentKeys.versionList(agentId, current, page),
    queryFn: () => unwrap(api.GET('/api/agents/{agentId}/versions', { params: { path: { agentId }, query: { limit: perPage, offset: (page - 1) * perPage } } })),
  });
}

/** A version as the Agent document of `rampart apply` (YAML text). */
export function useAgentVersionDocument(agentId: string, version: number) {
  return useQuery({
    queryKey: agentKeys.versionDocument(agentId, version),
    queryFn: () => unwrap(api.GET('/api/agents/{agentId}/versions/{version}/document', { params: { path: { agentId, version } }, parseAs: 'text' })),
  });
}

export function useAgentVersionDiff(agentId: string, version: number, against: number) {
  return useQuery({
    queryKey: agentKeys.versionDiff(agentId, version, against),
    queryFn: () => unwrap(api.GET('/api/agents/{agentId}/versions/{version}/diff', { params: { path: { agentId, version }, query: { against } } })),
  });
}

/** Restores a version (forced for an agent managed by code); the restored agent replaces the cached one. */
export function useRestoreAgentVersion(agentId: string, version: number, force: boolean) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.POST('/api/agents/{agentId}/versions/{version}/restore', { params: { path: { agentId, version }, query: force ? { force: 'true' } : {} } })),
    onSuccess: (agent) => qc.setQueryData(agentKeys.detail(agentId), agent),
  });
}
