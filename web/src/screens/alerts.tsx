import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Query } from '../api';
import { Link, useSearch } from '../router';
import { Badge, ErrorText, Loadable, Page, Pager, SearchBox, Select, Time, pageOf } from '../ui';
import { useAgents } from './shared';

export const ALERT_STATUSES = ['open', 'in_progress', 'escalated', 'closed_true_positive', 'closed_false_positive', 'closed_benign'] as const;
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];
const PER_PAGE = 50;

/** The alerts queue: server-side filters and pages (a 10,000-alert queue loads 50 rows at a time). */
export default function Alerts() {
  const [search, set] = useSearch();
  const page = pageOf(search);
  const agents = useAgents();
  const query: Query<'/api/alerts'> = {
    limit: PER_PAGE,
    offset: (page - 1) * PER_PAGE,
    ...(search.get('status') ? { status: search.get('status')! } : {}),
    ...(search.get('severity') ? { severity: search.get('severity')! } : {}),
    ...(search.get('source') ? { source: search.get('source')! } : {}),
    ...(search.get('assignee') ? { assignedAgentId: search.get('assignee')! } : {}),
    ...(search.get('search') ? { search: search.get('search')! } : {}),
  } as Query<'/api/alerts'>;
  const alerts = useQuery({ queryKey: ['alerts', query], queryFn: () => unwrap(api.GET('/api/alerts', { params: { query } })), placeholderData: (prev) => prev });
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [bulkStatus, setBulkStatus] = useState<AlertStatus>('in_progress');
  const qc = useQueryClient();
  const bulk = useMutation({
    mutationFn: () => unwrap(api.POST('/api/alerts/bulk/status', { body: { alertIds: [...selected], status: bulkStatus } })),
    onSuccess: () => {
      setSelected(new Set());
      void qc.invalidateQueries({ queryKey: ['alerts'] });
    },
  });

  const toggle = (id: string) => setSelected((s) => { const n = new Set(s); if (n.has(id)) n.delete(id); else n.add(id); return n; });

  return (
    <Page title="Alerts">
      <div className="filters">
        <Select label="Status" value={search.get('status') ?? ''} options={[...ALERT_STATUSES]} onChange={(v) => set({ status: v })} />
        <Select label="Severity" value={search.get('severity') ?? ''} options={[...SEVERITIES]} onChange={(v) => set({ severity: v })} />
        <Select label="Source" value={search.get('source') ?? ''} options={['webhook', 'jira', 'slack', 'linear', 'detection', 'trigger', 'agent', 'user', 'hunt']} onChange={(v) => set({ source: v })} />
        <Select label="Assignee" value={search.get('assignee') ?? ''} options={(agents.data ?? []).map((a) => [a.id, a.name] as [string, string])} onChange={(v) => set({ assignee: v })} />
        <SearchBox />
      </div>
      <div className="bulk" aria-label="Bulk actions">
        <span>{selected.size} selected</span>
        <Select label="Set status" value={bulkStatus} options={[...ALERT_STATUSES]} any={null} onChange={(v) => setBulkStatus(v as AlertStatus)} />
        <button type="button" disabled={selected.size === 0 || bulk.isPending} onClick={() => bulk.mutate()}>Apply to selected</button>
        {bulk.data && <span role="status">{bulk.data.updated.length} updated{bulk.data.failed.length ? `, ${bulk.data.failed.length} failed` : ''}</span>}
        <ErrorText error={bulk.error} />
      </div>
      <Loadable query={alerts} isEmpty={(d) => d.alerts.length === 0} empty="No alerts match these filters.">
        {(d) => (
          <>
            <div className="table-wrap">
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
                    <th scope="col">Assignee</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {d.alerts.map((a) => (
                    <tr key={a.id}>
                      <td><input type="checkbox" aria-label={`Select ${a.displayId}`} checked={selected.has(a.id)} onChange={() => toggle(a.id)} /></td>
                      <td><Link to={`/alerts/${a.id}`}><span className="mono">{a.displayId}</span> {a.title}</Link></td>
                      <td><Badge value={a.severity} /></td>
                      <td><Badge value={a.status} /></td>
                      <td>{a.source.triggerType ?? a.source.category} <span className="muted">{a.source.name}</span></td>
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
