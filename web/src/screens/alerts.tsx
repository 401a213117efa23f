import { useEffect, useRef, useState } from 'react';
import { type Query, type Schemas } from '../api';
import { useAgents } from '../api/agents';
import { useAlerts, useBulkAlertStatus, useEscalateAlert } from '../api/alerts';
import { Link, navigate, useSearch } from '../router';
import { useSession } from '../session';
import { Badge, ErrorText, Loadable, Page, Pager, SearchBox, Select, Time, pageOf } from '../ui';
import { ALERT_SOURCES } from './shared';

export const ALERT_STATUSES = ['open', 'in_progress', 'escalated', 'closed_true_positive', 'closed_false_positive', 'closed_benign'] as const satisfies ReadonlyArray<Schemas['Alert']['status']>;
// Every status the server answers (its OpenAPI enum) is offered: a new one fails the type check.
const everyStatus: [Exclude<Schemas['Alert']['status'], (typeof ALERT_STATUSES)[number]>] extends [never] ? true : false = true;
void everyStatus;
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];
const PER_PAGE = 50;
/** The queue's default: what still needs someone. `status=all` shows closed alerts too. */
const NOT_CLOSED = 'open,in_progress,escalated';
const STATUS_CHOICES: Array<[string, string]> = [['all', 'Any, closed too'], ...ALERT_STATUSES.map((s) => [s, s.replaceAll('_', ' ')] as [string, string])];

/** The alerts queue: server-side filters and pages (a 10,000-alert queue loads 50 rows at a time). */
export default function Alerts() {
  const [search, set] = useSearch();
  const page = pageOf(search);
  const agents = useAgents();
  const query: Query<'/api/alerts'> = {
    limit: PER_PAGE,
    offset: (page - 1) * PER_PAGE,
    ...(search.get('status') === 'all' ? {} : { status: search.get('status') ?? NOT_CLOSED }),
    ...(search.get('severity') ? { severity: search.get('severity')! } : {}),
    ...(search.get('source') ? { source: search.get('source')! } : {}),
    ...(search.get('assignee') ? { assignedAgentId: search.get('assignee')! } : {}),
    ...(search.get('search') ? { search: search.get('search')! } : {}),
  } as Query<'/api/alerts'>;
  const alerts = useAlerts(query);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [bulkStatus, setBulkStatus] = useState<AlertStatus>('in_progress');
  const bulk = useBulkAlertStatus();
  const applyBulk = () => bulk.mutate({ alertIds: [...selected], status: bulkStatus }, { onSuccess: () => setSelected(new Set()) });

  // Keyboard: j/k move through the rows, Enter opens, e escalates (not while typing in a field).
  const { can } = useSession();
  const [cursor, setCursor] = useState(-1);
  const rows = alerts.data?.alerts ?? [];
  const table = useRef<HTMLDivElement>(null);
  const escalate = useEscalateAlert();
  useEffect(() => setCursor(-1), [alerts.data]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement;
      if (e.metaKey || e.ctrlKey || e.altKey || ['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON'].includes(el.tagName) || el.isContentEditable) return;
      const move = (to: number) => {
        const next = Math.max(0, Math.min(rows.length - 1, to));
        setCursor(next);
        table.current?.querySelectorAll<HTMLAnchorElement>('tbody tr a')[next]?.focus();
      };
      if (e.key === 'j') move(cursor + 1);
      else if (e.key === 'k') move(cursor - 1);
      else if (e.key === 'Enter' && cursor >= 0 && el.tagName !== 'A') navigate(`/alerts/${rows[cursor]!.id}`);
      else if (e.key === 'e' && cursor >= 0 && can('alert.triage')) escalate.mutate(rows[cursor]!.id);
      else return;
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });

  const toggle = (id: string) => setSelected((s) => { const n = new Set(s); if (n.has(id)) n.delete(id); else n.add(id); return n; });

  return (
    <Page title="Alerts">
      <div className="filters">
        <Select label="Status" value={search.get('status') ?? ''} any="Not closed" options={STATUS_CHOICES} onChange={(v) => set({ status: v })} />
        <Select label="Severity" value={search.get('severity') ?? ''} options={[...SEVERITIES]} onChange={(v) => set({ severity: v })} />
        <Select label="Source" value={search.get('source') ?? ''} options={[...ALERT_SOURCES]} onChange={(v) => set({ source: v })} />
        <Select label="Assignee" value={search.get('assignee') ?? ''} options={(agents.data ?? []).map((a) => [a.id, a.name] as [string, string])} onChange={(v) => set({ assignee: v })} />
        <SearchBox />
      </div>
      <div className="bulk" aria-label="Bulk actions">
        <span>{selected.size} selected</span>
        <Select label="Set status" value={bulkStatus} options={[...ALERT_STATUSES]} any={null} onChange={(v) => setBulkStatus(v as AlertStatus)} />
        <button type="button" disabled={selected.size === 0 || bulk.isPending} onClick={applyBulk}>Apply to selected</button>
        {bulk.data && <span role="status">{bulk.data.updated.length} updated{bulk.data.failed.length ? `, ${bulk.data.failed.length} failed` : ''}</span>}
        <ErrorText error={bulk.error ?? escalate.error} />
      </div>
      <p className="muted small" id="queue-keys">Keys: <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>Enter</kbd> opens, <kbd>e</kbd> escalates. Filters are in the address: copy it to share this view.</p>
      <Loadable query={alerts} isEmpty={(d) => d.alerts.length === 0} empty="No alerts match these filters.">
        {(d) => (
          <>
            <div className="table-wrap" ref={table}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">
                      <input
                        type="checkbox"
                        aria-label="Select all on this page"
                        checked={d.alerts.length > 0 && d.alerts.every((a) => selected.has(a.id))}
                        onChange={(e) => setSelected(e.target.checked ? new Set(d.alerts.map((a) => a.id)) : new Set())}
                      />
                    </th>
                    <th scope="col">Alert</th>
                    <th scope="col">Severity</th>
                    <th scope="col">Status</th>
                    <th scope="col">Source</th>
                    <th scope="col">Duplicates</th>
                    <th scope="col">Assignee</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {d.alerts.map((a, i) => (
                    <tr key={a.id} className={i === cursor ? 'cursor' : undefined} aria-current={i === cursor ? 'true' : undefined}>
                      <td><input type="checkbox" aria-label={`Select ${a.displayId}`} checked={selected.has(a.id)} onChange={() => toggle(a.id)} /></td>
                      <td><Link to={`/alerts/${a.id}`}><span className="mono">{a.displayId}</span> {a.title}</Link></td>
                      <td><Badge value={a.severity} /></td>
                      <td><Badge value={a.status} /></td>
                      <td>{a.source.triggerType ?? a.source.category} <span className="muted">{a.source.name}</span></td>
                      {/* duplicateCount counts every signal, the first included: the duplicates are the others. */}
                      <td>{a.duplicateCount > 1 ? <span title={`${a.duplicateCount} signals folded into this alert`}>×{a.duplicateCount - 1}</span> : <span className="muted">—</span>}</td>
                      <td>{a.assignedAgentName ?? <span className="muted">—</span>}</td>
                      <td><Time at={a.createdAt} /></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager page={page} perPage={PER_PAGE} total={d.totalCount} />
          </>
        )}
      </Loadable>
    </Page>
  );
}
