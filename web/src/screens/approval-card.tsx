import { useEffect, useState } from 'react';
import { ApiError, type Paths } from '../api';
import { useAgent } from '../api/agents';
import { useAlert } from '../api/alerts';
import { useApprovals, useDecideApproval } from '../api/approvals';
import { Markdown } from '../markdown';
import { Link } from '../router';
import { useSession } from '../session';
import { Badge, ErrorText, Json, Time, shortRunId } from '../ui';

/**
 * One approval request as a person decides it (docs/approvals.md#in-the-console): the tool, its
 * arguments exactly as the model gave them, the model's reason, the agent, run and alert, when it
 * was asked and when it expires, and Approve / Deny with an optional comment. Shared by the
 * Approvals queue, a request's own page and the panels of the run and alert pages.
 */
export type Approval = Paths['/api/approvals/{approvalId}']['get']['responses'][200]['content']['application/json'];

/** The clock, ticking every `ms`, so relative times ("in 12 min") stay true on an open page. */
function useNow(ms = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [['day', 86_400_000], ['hour', 3_600_000], ['minute', 60_000], ['second', 1000]];
const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** "in 57 minutes", "3 minutes ago": the largest unit that fits. */
export function relativeTime(at: string, now: number): string {
  const diff = new Date(at).getTime() - now;
  const [unit, size] = UNITS.find(([, s]) => Math.abs(diff) >= s) ?? UNITS[UNITS.length - 1]!;
  return rtf.format(Math.round(diff / size), unit);
}

/** A time and how long ago (or until): `now` is the ticking clock's, never behind the moment of rendering (a decision just made is "now", not "in 11 seconds"). */
function When({ at, now }: { at: string | null; now: number }) {
  if (!at) return <span className="muted">—</span>;
  return <><Time at={at} /> <span className="muted">({relativeTime(at, Math.max(now, Date.now()))})</span></>;
}

const VIA: Record<NonNullable<Approval['decidedVia']>, string> = { console: 'from the console', api: 'through the API', slack: 'in Slack', expiry: 'by expiry' };

/** What became of the request, in words: who decided, when, from where, and the outcome of the call. */
const OUTCOME: Partial<Record<Approval['status'], string>> = {
  approved: 'Approved: the run is resuming to make the call.',
  executing: 'Approved: the call is under way.',
  executed: 'Approved: the call ran once, with the arguments shown.',
  failed: 'Approved: the call ran once and failed.',
  outcome_unknown: 'Approved: the worker stopped during the call, so whether it took effect is unknown. It is never run again.',
  denied: 'Denied: the tool was not called; the model was told why.',
  expired: 'Expired: no one decided in time. The tool was not called.',
};

function Decision({ a, now }: { a: Approval; now: number }) {
  const who = a.decidedBy?.name ?? (a.status === 'expired' ? null : 'someone');
  return (
    <div className="decision" aria-label="Decision">
      <p><strong>{OUTCOME[a.status]}</strong></p>
      <dl className="facts">
        {who && (<><dt>Decided by</dt><dd>{who}</dd></>)}
        <dt>Decided</dt><dd><When at={a.decidedAt} now={now} />{a.decidedVia && <> · {VIA[a.decidedVia]}</>}</dd>
        {a.comment && (<><dt>Comment</dt><dd className="break">{a.comment}</dd></>)}
        {a.executedAt && (<><dt>Called</dt><dd><When at={a.executedAt} now={now} /></dd></>)}
      </dl>
      {a.outcome && (
        <details>
          <summary>{'error' in a.outcome ? 'The error the model was given' : 'The result the model was given'}</summary>
          <Json value={a.outcome.error ?? a.outcome.result ?? a.outcome} />
        </details>
      )}
    </div>
  );
}

/** The 409 of a request decided first by someone else (or by the clock), as a sentence. */
function alreadyDecided(e: ApiError): string {
  const b = e.body as { status?: string; decidedBy?: { name: string | null } | null; decidedAt?: string | null };
  const by = b.decidedBy?.name ? ` by ${b.decidedBy.name}` : '';
  const at = b.decidedAt ? ` at ${new Date(b.decidedAt).toLocaleString()}` : '';
  return `Already decided${by}${at}: ${String(b.status ?? 'not pending').replaceAll('_', ' ')}. Nothing was changed.`;
}

/** Approve / Deny with an optional comment; off, with the reason, for a user without `approval.decide`. */
function DecideForm({ a, onConflict }: { a: Approval; onConflict: (message: string) => void }) {
  const { can } = useSession();
  const [comment, setComment] = useState('');
  const decide = useDecideApproval(a, (e) => onConflict(alreadyDecided(e)));
  const allowed = can('approval.decide');
  const reasonId = `decide-reason-${a.id}`;
  const error = decide.error instanceof ApiError && decide.error.status === 409 ? null : decide.error;
  return (
    <form className="stack decide" aria-label={`Decide ${a.toolName}`} onSubmit={(e) => e.preventDefault()}>
      <label className="field"><span>Comment (optional; a denial's comment is given to the model)</span>
        <textarea rows={2} value={comment} maxLength={2000} onChange={(e) => setComment(e.target.value)} disabled={!allowed || decide.isPending} />
      </label>
      <div className="inline-form">
        <button type="button" className="approve" disabled={!allowed || decide.isPending} aria-describedby={allowed ? undefined : reasonId} onClick={() => decide.mutate({ verb: 'approve', comment })}>Approve</button>
        <button type="button" className="deny" disabled={!allowed || decide.isPending} aria-describedby={allowed ? undefined : reasonId} onClick={() => decide.mutate({ verb: 'deny', comment })}>Deny</button>
      </div>
      {!allowed && <p id={reasonId} className="muted small">You cannot decide: your role lacks the permission approval.decide.</p>}
      <ErrorText error={error} />
    </form>
  );
}

/** The agent's name when the user may read agents, else its id. */
function AgentName({ agentId }: { agentId: string }) {
  const { can } = useSession();
  const agent = useAgent(agentId, { enabled: can('agent.read'), staleTime: 60_000 });
  return <>{agent.data?.name ?? <span className="mono">{agentId}</span>}</>;
}

/** The alert by its display id (`RMP-42`) when the user may read alerts. */
function AlertRef({ alertId }: { alertId: string }) {
  const { can } = useSession();
  const alert = useAlert(alertId, { enabled: can('alert.read'), staleTime: 60_000 });
  return <Link to={`/alerts/${alertId}`} className="mono" title={alert.data?.alert.title ?? alertId}>{alert.data?.alert.displayId ?? alertId}</Link>;
}

/**
 * One request. `context` leaves out what the page shows already (the run page its run, the alert
 * page its alert); `linkTitle` makes the tool name a link to the request's own page.
 */
export function ApprovalCard({ a, context, linkTitle = true }: { a: Approval; context?: 'run' | 'alert'; linkTitle?: boolean }) {
  const now = useNow();
  // Kept here, not in the form: the refreshed request (decided) replaces the form, and the message must stay.
  const [conflict, setConflict] = useState<string | null>(null);
  const title = <code>{a.toolName}</code>;
  return (
    <article className="card approval" aria-label={`Approval request: ${a.toolName}`}>
      <header className="approval-head">
        <h3>{linkTitle ? <Link to={`/approvals/${a.id}`}>{title}</Link> : title}</h3>
        <Badge value={a.status} />
      </header>
      <dl className="facts">
        <dt>Agent</dt><dd><Link to={`/agents/${a.agentId}`}><AgentName agentId={a.agentId} /></Link></dd>
        {context !== 'run' && (<><dt>Run</dt><dd><Link to={`/agents/${a.agentId}/runs/${a.runId}`} className="mono" title={a.runId}>{shortRunId(a.runId)}</Link></dd></>)}
        {context !== 'alert' && a.alertId && (<><dt>Alert</dt><dd><AlertRef alertId={a.alertId} /></dd></>)}
        <dt>Requested</dt><dd><When at={a.requestedAt} now={now} /></dd>
        {a.status === 'pending' && (<><dt>Expires</dt><dd><When at={a.expiresAt} now={now} /></dd></>)}
        {a.status === 'expired' && (<><dt>Expired</dt><dd><When at={a.expiresAt} now={now} /></dd></>)}
      </dl>
      <h4>The model's reason</h4>
      {a.reason.trim() ? <blockquote className="reason"><Markdown text={a.reason} /></blockquote> : <p className="muted">The model gave no reason.</p>}
      <h4>Arguments</h4>
      <Json value={a.args ?? null} />
      {conflict && <p className="notice" role="status">{conflict}</p>}
      {a.status === 'pending' ? <DecideForm a={a} onConflict={setConflict} /> : <Decision a={a} now={now} />}
    </article>
  );
}

/**
 * The requests of one run or one alert, on its page: pending ones decidable in place. Absent when
 * there are none, or for a user who may not read approvals.
 */
export function ApprovalsPanel({ filter, context }: { filter: { runId: string } | { alertId: string }; context: 'run' | 'alert' }) {
  const { can } = useSession();
  const list = useApprovals({ ...filter, limit: 50 }, can('approval.read'));
  const approvals = list.data?.approvals ?? [];
  if (approvals.length === 0) return null;
  const pending = approvals.filter((a) => a.status === 'pending').length;
  return (
    <section aria-labelledby={`approvals-${context}`} className="approvals-panel">
      <h2 id={`approvals-${context}`}>Approvals{pending > 0 && <> · <span className="badge v-pending">{pending} pending</span></>}</h2>
      <div className="cards">
        {approvals.map((a) => <ApprovalCard key={a.id} a={a} context={context} />)}
      </div>
    </section>
  );
}
