import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Body } from '../api';
import { resourceKeys } from '../query-keys';

/** Evaluations (`/api/agents/{agentId}/evaluations`, `/api/evaluations`): an agent's list, one evaluation, a comparison of two. */
export const evaluationKeys = resourceKeys<string>('evaluations').with((k) => ({
  compare: (a: string, b: string) => [...k.all, 'compare', { a, b }] as const,
}));

/** Evaluation datasets (`/api/evaluation-datasets`). */
export const datasetKeys = resourceKeys('evaluation-datasets');

/** An agent's evaluations, polled every three seconds (they progress while the page is open). */
export function useAgentEvaluations(agentId: string) {
  return useQuery({ queryKey: evaluationKeys.list(agentId), queryFn: () => unwrap(api.GET('/api/agents/{agentId}/evaluations', { params: { path: { agentId } } })), refetchInterval: 3000 });
}

/** Starts an evaluation; the agent's list refetches. */
export function useStartEvaluation(agentId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'/api/agents/{agentId}/evaluations', 'post'>) => unwrap(api.POST('/api/agents/{agentId}/evaluations', { params: { path: { agentId } }, body })),
    onSuccess: () => void qc.invalidateQueries({ queryKey: evaluationKeys.list(agentId) }),
  });
}

/** One evaluation, polled every two seconds until it stops running. */
export function useEvaluation(evaluationId: string) {
  return useQuery({
    queryKey: evaluationKeys.detail(evaluationId),
    queryFn: () => unwrap(api.GET('/api/evaluations/{evaluationId}', { params: { path: { evaluationId } } })),
    refetchInterval: (q) => (q.state.data && q.state.data.status !== 'running' ? false : 2000),
  });
}

/** Cancels an evaluation; the answer replaces the cached one. */
export function useCancelEvaluation(evaluationId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.POST('/api/evaluations/{evaluationId}/cancel', { params: { path: { evaluationId } } })),
    onSuccess: (e) => qc.setQueryData(evaluationKeys.detail(evaluationId), e),
  });
}

export function useEvaluationComparison(a: string, b: string) {
  return useQuery({ queryKey: evaluationKeys.compare(a, b), enabled: Boolean(a && b), queryFn: () => unwrap(api.GET('/api/evaluations/compare', { params: { query: { a, b } } })) });
}

export function useDatasets() {
  return useQuery({ queryKey: datasetKeys.all, queryFn: () => unwrap(api.GET('/api/evaluation-datasets')) });
}

/** Creates a dataset and, when given, imports its cases from JSONL; the datasets refetch. */
export function useCreateDataset() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ name, jsonl }: { name: string; jsonl: string }) => {
      const d = await unwrap(api.POST('/api/evaluation-datasets', { body: { name } }));
      if (jsonl.trim()) {
        // JSONL as is: the typed client would serialize the body as JSON.
        await unwrap(api.POST('/api/evaluation-datasets/{datasetId}/cases/import', { params: { path: { datasetId: d.id } }, body: jsonl, bodySerializer: (b: string) => b, headers: { 'content-type': 'application/x-ndjson' } }));
      }
      return d;
    },
    onSuccess: () => void qc.invalidateQueries({ queryKey: datasetKeys.all }),
  });
}
