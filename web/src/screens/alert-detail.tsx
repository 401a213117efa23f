import { useEffect, useState, type FormEvent } from 'react';
import { type Schemas } from '../api';
import { useAgents } from '../api/agents';
import { useAlert, useAssignAlert, useCommentOnAlert, useRefreshAlert, useSetAlertSeverity, useSetAlertStatus } from '../api/alerts';
import { useRunStatus } from '../api/runs';
import { Link } from '../router';
import { useSession } from '../session';
import { Markdown } from '../markdown';
import { Badge, ErrorText, Json, Loadable, Page, Select, Time } from '../ui';
import { ALERT_STATUSES, SEVERITIES, type AlertStatus } from './alerts';
import { ApprovalsPanel } from './approval-card';

export default function AlertDetail({ params }: { params: Record<string, string> }) {
  const alertId = params.id!;
  const [live, setLive] = useState(false);
  // While the triage run works, the alert (status, timeline) changes under it: poll.
  const detail = useAlert(alertId, { refetchInterval: live ? 2000 : false });
  const alert = detail.data?.alert;
  const run = useRunStatus(alert?.assignedAgentId ?? null, alert?.triageRunId ?? null);
  const running = run.data?.status === 'waiting' || run.data?.status === 'running';
  const refresh = useRefreshAlert(alertId);
  useEffect(() => {
    // Once more when the run ends: its last changes are in the alert.
    if (live && !running) void refresh();
    setLive(running);
  }, [running]);

  return (
    <Loadable query={detail}>
      {({ alert: a, timeline }) => (
        <Page title={`${a.displayId} · ${a.title}`} actions={<Link to="/alerts">Back to the queue</Link>}>
          <div className="grid two">
            <section aria-labelledby="facts">
              <h2 id="facts">Alert</h2>
              <dl className="facts">
                <dt>Status</dt><dd><Badge value={a.status} /></dd>
                <dt>Severity</dt><dd><Badge value={a.severity} /></dd>
                <dt>Source</dt><dd>{a.source.category} · {a.source.name}</dd>
                <dt>Assigned agent</dt><dd>{a.assignedAgentName ?? '—'}</dd>
                <dt>Routing</dt><dd>{a.routing ? `${a.routing.outcome}${a.routing.routeName ? ` (${a.routing.routeName})` : ''}: ${a.routing.reason}` : '—'}</dd>
                <dt>Created</dt><dd><Time at={a.createdAt} /></dd>
                {a.resolvedReason && (<><dt>Resolution</dt><dd>{a.resolvedReason}</dd></>)}
              </dl>
              {a.description && <Markdown text={a.description} />}
              <TriageRun agentId={a.assignedAgentId} runId={a.triageRunId} status={run.data?.status} message={run.data?.statusMessage} />
            </section>
            <section aria-labelledby="act">
              <h2 id="act">Act</h2>
              <StatusForm alertId={alertId} current={a.status} />
              <SeverityForm alertId={alertId} current={a.severity} />
              <AssignForm alertId={alertId} />
            </section>
          </div>
          <ApprovalsPanel filter={{ alertId }} context="alert" />
          <section aria-labelledby="timeline">
            <h2 id="timeline">Timeline</h2>
            {timeline.length === 0 ? <p className="state empty">No activity yet.</p> : <Timeline entries={timeline} />}
            <CommentForm alertId={alertId} />
          </section>
          <section aria-labelledby="payload">
            <h2 id="payload">Payload</h2>
            <Json value={a.payload} />
            {a.payloadRaw != null && (
              // The evidence to export: the body byte for byte as the sender sent it (the payload above is the parsed value).
              <details>
                <summary>As received ({new Blob([a.payloadRaw]).size} bytes)</summary>
                <p><a href={`data:application/octet-stream;charset=utf-8,${encodeURIComponent(a.payloadRaw)}`} download={`${a.displayId}-payload-as-received`}>Download as received</a></p>
                <pre className="code">{a.payloadRaw}</pre>
              </details>
            )}
          </section>
        </Page>
      )}
    </Loadable>
  );
}

function TriageRun({ agentId, runId, status, message }: { agentId: string | null; runId: string | null; status?: string; message?: string | null }) {
  if (!agentId || !runId) return <p className="muted">No triage run.</p>;
  return (
    <p className="triage" role="status" aria-live="polite">
      Triage run <Badge value={status ?? 'loading'} /> {message && <span className="muted">{message}</span>}{' '}
      <Link to={`/agents/${agentId}/runs/${runId}`}>Transcript</Link>
    </p>
  );
}

function StatusForm({ alertId, current }: { alertId: string; current: AlertStatus }) {
  const [status, setStatus] = useState<AlertStatus>(current);
  const [reason, setReason] = useState('');
  const m = useSetAlertStatus(alertId);
  return (
    <form className="stack" onSubmit={(e: FormEvent) => { e.preventDefault(); m.mutate({ status, ...(reason ? { reason } : {}) }, { onSuccess: () => setReason('') }); }} aria-label="Change status">
      <Select label="Status" value={status} options={[...ALERT_STATUSES]} any={null} onChange={(v) => setStatus(v as AlertStatus)} />
      <label className="field"><span>Reason</span><input value={reason} onChange={(e) => setReason(e.target.value)} /></label>
      <button type="submit" disabled={m.isPending}>Set status</button>
      <ErrorText error={m.error} />
    </form>
  );
}

function SeverityForm({ alertId, current }: { alertId: string; current: (typeof SEVERITIES)[number] }) {
  const [severity, setSeverity] = useState(current);
  const m = useSetAlertSeverity(alertId);
  return (
    <form className="stack" onSubmit={(e) => { e.preventDefault(); m.mutate({ severity }); }} aria-label="Change severity">
      <Select label="Severity" value={severity} options={[...SEVERITIES]} any={null} onChange={(v) => setSeverity(v as typeof severity)} />
      <button type="submit" disabled={m.isPending}>Set severity</button>
      <ErrorText error={m.error} />
    </form>
  );
}

function AssignForm({ alertId }: { alertId: string }) {
  const agents = useAgents();
  const { can } = useSession();
  const [agentId, setAgentId] = useState('');
  const m = useAssignAlert(alertId);
  if (!can('agent.execute')) return null;
  return (
    <form className="stack" onSubmit={(e) => { e.preventDefault(); m.mutate({ agentId }); }} aria-label="Assign to an agent">
      <Select label="Assign to agent" value={agentId} any="Choose an agent" options={(agents.data ?? []).map((a) => [a.id, a.name] as [string, string])} onChange={setAgentId} />
      <button type="submit" disabled={!agentId || m.isPending}>Assign and triage</button>
      <ErrorText error={m.error} />
    </form>
  );
}

function CommentForm({ alertId }: { alertId: string }) {
  const [body, setBody] = useState('');
  const m = useCommentOnAlert(alertId);
  return (
    <form className="stack" onSubmit={(e) => { e.preventDefault(); m.mutate({ bodyMarkdown: body }, { onSuccess: () => setBody('') }); }} aria-label="Add a comment">
      <label className="field"><span>Comment</span><textarea value={body} onChange={(e) => setBody(e.target.value)} rows={3} required /></label>
      <button type="submit" disabled={m.isPending || !body.trim()}>Add comment</button>
      <ErrorText error={m.error} />
    </form>
  );
}

type Entry = Schemas['AlertTimelineEntry'];

/** Who acted: the person or agent by name; "Rampart" for the system's own entries. */
function actorOf(e: Entry): string {
  if (e.actorType === 'system') return 'Rampart';
  if (e.actorName) return e.actorName;
  return e.actorType === 'agent' ? 'a deleted agent' : 'a deleted user';
}

/**
 * The timeline, oldest first, each entry naming who acted. Consecutive duplicate signals fold
 * into one line ("6 duplicates, last at …") whose payloads open on demand.
 */
function Timeline({ entries }: { entries: Entry[] }) {
  const groups: Entry[][] = [];
  for (const e of entries) {
    const last = groups.at(-1);
    if (e.kind === 'duplicate' && last?.[0]?.kind === 'duplicate') last.push(e);
    else groups.push([e]);
  }
  return (
    <ol className="timeline">
      {groups.map((g) => {
        const e = g[0]!;
        if (e.kind === 'duplicate' && g.length > 1) {
          return (
            <li key={e.id} className="dupes">
              <details>
                <summary>{g.length} duplicates, last at <Time at={g.at(-1)!.createdAt} /></summary>
                <ol>
                  {g.map((d) => (
                    <li key={d.id}><Time at={d.createdAt} /> <span className="muted">{d.body}</span><Json value={d.data.payload ?? null} /></li>
                  ))}
                </ol>
              </details>
            </li>
          );
        }
        return (
          <li key={e.id}>
            <Time at={e.createdAt} /> <Badge value={e.kind} /> <span className="actor">{actorOf(e)}</span>
            {e.body && <Markdown text={e.body} />}
            {e.kind === 'duplicate' && <details><summary>Payload</summary><Json value={e.data.payload ?? null} /></details>}
          </li>
        );
      })}
    </ol>
  );
}
