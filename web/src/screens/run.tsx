import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { Link } from '../router';
import { Badge, Json, Loadable, Page } from '../ui';

const LIVE = new Set(['waiting', 'running']);

/** A run's status, polled every two seconds while it is waiting or running. */
export function useRunStatus(agentId: string | null, runId: string | null) {
  return useQuery({
    queryKey: ['run-status', agentId, runId],
    enabled: Boolean(agentId && runId),
    queryFn: () => unwrap(api.GET('/api/agents/{agentId}/run-async/{runId}/status', { params: { path: { agentId: agentId!, runId: runId! } } })),
    refetchInterval: (q) => (q.state.data && !LIVE.has(q.state.data.status) ? false : 2000),
  });
}

/** One run: its status and, once finished, the transcript (messages, tool calls and results). */
export default function RunView({ params }: { params: Record<string, string> }) {
  const { agentId, runId } = params as { agentId: string; runId: string };
  const status = useRunStatus(agentId, runId);
  const done = status.data !== undefined && !LIVE.has(status.data.status);
  const result = useQuery({
    queryKey: ['run-result', runId],
    enabled: done,
    queryFn: () => unwrap(api.GET('/api/agents/{agentId}/run-async/{runId}/result', { params: { path: { agentId, runId } } })),
  });
  return (
    <Page title="Agent run" actions={<Link to={`/agents/${agentId}`}>Back to the agent</Link>}>
      <Loadable query={status}>
        {(s) => (
          <p role="status" aria-live="polite">
            <Badge value={s.status} /> {s.statusMessage}
          </p>
        )}
      </Loadable>
      {!done ? <p className="state">The transcript appears when the run finishes.</p> : (
        <Loadable query={result}>
          {(r) => (
            <>
              <h2>Final answer</h2>
              <p className="prose">{r.finalAssistantMessage || <span className="muted">(none)</span>}</p>
              <h2>Transcript</h2>
              <ol className="transcript">
                {r.messages.map((m, i) => (
                  <li key={i} className={`msg ${m.role}`}>
                    <strong>{m.role}</strong>
                    {typeof m.content === 'string' ? <p className="prose">{m.content}</p> : <Json value={m.content} />}
                  </li>
                ))}
              </ol>
              <h2>Tool calls</h2>
              {r.allToolCallsMade.length === 0 ? <p className="state empty">No tool calls.</p> : (
                <ol className="transcript">
                  {r.allToolCallsMade.map((c) => {
                    const res = r.allToolResultsReceived.find((x) => x.toolCallId === c.toolCallId);
                    return (
                      <li key={c.toolCallId}>
                        <strong>{c.toolName}</strong>
                        <Json value={c.args} />
                        {res && <><span className={res.isError ? 'error' : 'muted'}>{res.isError ? 'error' : 'result'}</span><Json value={res.result} /></>}
                      </li>
                    );
                  })}
                </ol>
              )}
            </>
          )}
        </Loadable>
      )}
    </Page>
  );
}
