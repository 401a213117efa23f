import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Query } from '../api';
import { resourceKeys } from '../query-keys';

/**
 * Agent runs (`/api/agent-runs`, and a run's status under its agent). A run's status sits under
 * the run's key, so invalidating the run refreshes both.
 */
export const runKeys = resourceKeys<Query<'/api/agent-runs'>>('runs').with((k) => ({
  status: (agentId: string, runId: string) => [...k.detail(runId), 'status', agentId] as const,
}));

export const LIVE = new Set(['waiting', 'running']);
/** A run waiting for a person holds no worker (docs/approvals.md): polled slowly, its panel says what it waits for. */
export const PAUSED = 'awaiting_approval';
const pollOf = (status: string | undefined) => (status === undefined || LIVE.has(status) ? 2000 : status === PAUSED ? 10_000 : false);

/** An agent's latest runs, polled every five seconds. */
export function useAgentRuns(agentId: string, pageSize: number) {
  const query = { agentId, pageSize };
  return useQuery({ queryKey: runKeys.list(query), queryFn: () => unwrap(api.GET('/api/agent-runs', { params: { query } })), refetchInterval: 5000 });
}

/** One run, polled while it is waiting or running (slowly while it waits for a person). */
export function useRun(runId: string) {
  return useQuery({
    queryKey: runKeys.detail(runId),
    queryFn: () => unwrap(api.GET('/api/agent-runs/{runId}', { params: { path: { runId } } })),
    refetchInterval: (q) => pollOf(q.state.data?.status),
  });
}

/** A run's status, polled every two seconds while it is waiting or running. */
export function useRunStatus(agentId: string | null, runId: string | null) {
  return useQuery({
    queryKey: runKeys.status(agentId ?? '', runId ?? ''),
    enabled: Boolean(agentId && runId),
    queryFn: () => unwrap(api.GET('/api/agents/{agentId}/run-async/{runId}/status', { params: { path: { agentId: agentId!, runId: runId! } } })),
    refetchInterval: (q) => pollOf(q.state.data?.status),
  });
}
