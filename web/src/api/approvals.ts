import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, unwrap, type Query } from '../api';
import { alertKeys } from './alerts';
import { runKeys } from './runs';
import { resourceKeys } from '../query-keys';

/**
 * Approval requests (`/api/approvals`). A decision changes more than the request: the run leaves
 * awaiting_approval once its requests are decided, and the alert's timeline notes it.
 */
export const approvalKeys = resourceKeys<Query<'/api/approvals'>>('approvals');

/** Statuses after which nothing changes any more: no need to poll. */
const SETTLED = new Set(['denied', 'expired', 'executed', 'failed', 'outcome_unknown']);
const POLL_MS = 5000;

/** Approval requests (the queue or a run's or alert's), polled while any of them may still change. */
export function useApprovals(query: Query<'/api/approvals'>, enabled = true) {
  return useQuery({
    queryKey: approvalKeys.list(query),
    enabled,
    queryFn: () => unwrap(api.GET('/api/approvals', { params: { query } })),
    // A request is decided elsewhere (Slack, another person, the clock) and runs after approval.
    refetchInterval: (q) => (q.state.data?.approvals.some((a) => !SETTLED.has(a.status)) || query.status === 'pending' ? POLL_MS : false),
  });
}

export function useApproval(approvalId: string) {
  return useQuery({
    queryKey: approvalKeys.detail(approvalId),
    queryFn: () => unwrap(api.GET('/api/approvals/{approvalId}', { params: { path: { approvalId } } })),
    refetchInterval: (q) => (q.state.data && SETTLED.has(q.state.data.status) ? false : POLL_MS),
  });
}

type Decided = { id: string; runId: string; agentId: string; alertId: string | null };

/**
 * Approve or deny with an optional comment. The answer replaces the cached request; the requests,
 * the run (and its status) and the alert refetch. A 409 (decided first by someone else or by the
 * clock) goes to `onConflict` and refreshes the same, so the page shows the decision that won.
 */
export function useDecideApproval(a: Decided, onConflict: (e: ApiError) => void) {
  const qc = useQueryClient();
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: approvalKeys.lists() });
    void qc.invalidateQueries({ queryKey: approvalKeys.detail(a.id) });
    void qc.invalidateQueries({ queryKey: runKeys.detail(a.runId) });
    if (a.alertId) void qc.invalidateQueries({ queryKey: alertKeys.detail(a.alertId) });
  };
  return useMutation({
    mutationFn: ({ verb, comment }: { verb: 'approve' | 'deny'; comment: string }) => {
      const options = { params: { path: { approvalId: a.id } }, body: comment.trim() ? { comment: comment.trim() } : {} };
      return unwrap(verb === 'approve' ? api.POST('/api/approvals/{approvalId}/approve', options) : api.POST('/api/approvals/{approvalId}/deny', options));
    },
    onSuccess: (saved) => {
      qc.setQueryData(approvalKeys.detail(a.id), saved);
      refresh();
    },
    onError: (e) => {
      if (e instanceof ApiError && e.status === 409) {
        onConflict(e);
        refresh();
      }
    },
  });
}
