import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Paths } from '../api';
import { resourceKeys } from '../query-keys';

/** Agent triggers (`/api/agents/{agentId}/trigger`): one list per agent, and the picker over many agents. */
export const triggerKeys = resourceKeys<string>('triggers').with((k) => ({
  picker: (agentIds: string[] | undefined) => [...k.all, 'picker', agentIds] as const,
}));

type Source = Paths['/api/agents/{agentId}/trigger/{source}/fields']['get']['parameters']['path']['source'];
const listTriggers = (agentId: string) => unwrap(api.GET('/api/agents/{agentId}/trigger', { params: { path: { agentId } } }));
type TriggerList = Awaited<ReturnType<typeof listTriggers>>;

export function useTriggers(agentId: string) {
  return useQuery({ queryKey: triggerKeys.list(agentId), queryFn: () => listTriggers(agentId) });
}

/** The triggers of the given agents as picker options (id, words), fetched only when enabled. */
export function useTriggerOptions(agents: Array<{ id: string; name: string }> | undefined, enabled: boolean) {
  return useQuery({
    queryKey: triggerKeys.picker(agents?.map((a) => a.id)),
    enabled: enabled && !!agents,
    staleTime: 30_000,
    queryFn: async () => (await Promise.all((agents ?? []).map(async (a) => {
      const r = await listTriggers(a.id);
      return r.triggers.map((t) => [t.id, `${t.name} (${t.source}, agent ${a.name}${t.routeAlerts ? ', routes its alerts' : ''})`] as [string, string]);
    }))).flat(),
  });
}

/** Switches routeAlerts; the answer is the saved trigger, put in the list at once (no refetch, no flicker back). */
export function useSetTriggerRouting(agentId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ triggerId, on }: { triggerId: string; on: boolean }) => unwrap(api.PUT('/api/agents/{agentId}/trigger/{triggerId}', { params: { path: { agentId, triggerId } }, body: { routeAlerts: on } })),
    onSuccess: (saved) => qc.setQueryData(triggerKeys.list(agentId), (d: TriggerList | undefined) => d && { ...d, triggers: d.triggers.map((x) => (x.id === saved.id ? saved : x)) }),
  });
}

/** Creates a webhook-style trigger: asks for its URL and secret, saves it, and answers both (the secret is shown once). */
export function useCreateTrigger(agentId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ source, name, routeAlerts }: { source: Source; name: string; routeAlerts: boolean }) => {
      const fields = await unwrap(api.GET('/api/agents/{agentId}/trigger/{source}/fields', { params: { path: { agentId, source } } }));
      const triggerId = fields.data.webhookUrl.split('/').pop()!;
      await unwrap(api.POST('/api/agents/{agentId}/trigger/save', { params: { path: { agentId } }, body: { source, triggerId, name: name || source, enabled: true, createAlert: true, routeAlerts } }));
      return { webhookUrl: fields.data.webhookUrl, secret: fields.data.secret };
    },
    onSuccess: () => void qc.invalidateQueries({ queryKey: triggerKeys.list(agentId) }),
  });
}
