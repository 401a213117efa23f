import { type Schemas } from '../api';
import { useInsights } from '../api/insights';
import { Link, useSearch } from '../router';
import { DataTable, Loadable, Page, Select } from '../ui';
import { BarChart } from './chart';

type Insights = Schemas['Insights'];
const WINDOWS: Array<[string, string]> = [['7d', 'Last 7 days'], ['30d', 'Last 30 days'], ['90d', 'Last 90 days']];
const SEVERITY_COLORS = { low: '--c-low', medium: '--c-medium', high: '--c-high', critical: '--c-critical' } as const;
const PALETTE = ['--c-1', '--c-2', '--c-3', '--c-4', '--c-5', '--c-6'];
const AGE_LABEL: Record<string, string> = { under_1d: 'under a day', '1d_7d': '1–7 days', '7d_30d': '7–30 days', over_30d: 'over 30 days' };

/** "15 min", "2.5 h", "3.2 d"; "—" without a figure. */
export function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86_400).toFixed(1)} d`;
}
const percent = (v: number | null) => (v === null ? '—' : `${Math.round(v * 100)} %`);
const shortDay = (day: string) => day.slice(5);

/** The home screen: what happened over the window, from GET /api/insights. */
export default function InsightsView() {
  const [search, set] = useSearch();
  const window = (search.get('window') ?? '30d') as '7d' | '30d' | '90d';
  const insights = useInsights(window);
  return (
    <Page title="Insights" actions={<Select label="Window" value={window} any={null} options={WINDOWS} onChange={(v) => set({ window: v === '30d' ? null : v })} />}>
      <Loadable query={insights}>{(d) => <Figures d={d} />}</Loadable>
    </Page>
  );
}

function Figures({ d }: { d: Insights }) {
  const a = d.alerts;
  const days = a.perDay.map((x) => shortDay(x.day));
  const total = a.perDay.reduce((n, x) => n + x.total, 0);
  const open = a.open.byStatus.reduce((n, x) => n + x.count, 0);
  return (
    <>
      <dl className="kpis" aria-label="Summary">
        <div><dt>Alerts in the window</dt><dd>{total}</dd></div>
        <div><dt>Open now</dt><dd>{open}</dd></div>
        <div><dt>MTTA p50</dt><dd>{duration(a.mtta.all.p50Seconds)}</dd></div>
        <div><dt>MTTR p50</dt><dd>{duration(a.mttr.all.p50Seconds)}</dd></div>
        {d.runs && <div><dt>Agent runs</dt><dd>{d.runs.totals.runs}</dd></div>}
        {d.runs && <div><dt>Failed runs</dt><dd>{d.runs.totals.failed}</dd></div>}
        {d.approvals && <div><dt>Approvals pending</dt><dd><Link to="/approvals">{d.approvals.pending}</Link></dd></div>}
      </dl>

      <section aria-labelledby="alerts-h">
        <h2 id="alerts-h">Alerts</h2>
        <div className="charts">
          <BarChart id="alerts-severity" title="Alerts per day by severity" labels={days}
            series={(['low', 'medium', 'high', 'critical'] as const).map((s) => ({ label: s, values: a.perDay.map((x) => x[s]), color: SEVERITY_COLORS[s] }))} />
          <BarChart id="alerts-source" title="Alerts per day by source" labels={days}
            series={a.sources.slice(0, PALETTE.length).map((s, i) => ({ label: s, values: a.perDaySource.map((x) => x.counts[s] ?? 0), color: PALETTE[i]! }))}
            note={a.sources.length > PALETTE.length ? `The ${PALETTE.length} largest of ${a.sources.length} sources.` : undefined} />
          <BarChart id="open-status" title="Open alerts by status (now)" horizontal stacked={false} labels={a.open.byStatus.map((x) => x.status.replace('_', ' '))}
            series={[{ label: 'Alerts', values: a.open.byStatus.map((x) => x.count), color: '--c-1' }]} />
          <BarChart id="open-age" title="Open alerts by age (now)" horizontal stacked={false} labels={a.open.byAge.map((x) => AGE_LABEL[x.age] ?? x.age)}
            series={[{ label: 'Alerts', values: a.open.byAge.map((x) => x.count), color: '--c-2' }]} />
        </div>
        <h3>Time to acknowledge and to resolve</h3>
        <p className="muted small">Acknowledged: first triage (an agent assigned by a route, a trigger or a person). Resolved: closed. Alerts created in the window; p50 is the median, p90 the time 9 in 10 alerts beat.</p>
        <DataTable head={<><th scope="col">Severity</th><th scope="col">MTTA p50</th><th scope="col">MTTA p90</th><th scope="col">MTTR p50</th><th scope="col">MTTR p90</th><th scope="col">Resolved</th></>}>
          {[{ severity: 'all', ack: a.mtta.all, res: a.mttr.all }, ...a.mtta.bySeverity.map((m, i) => ({ severity: m.severity, ack: m, res: a.mttr.bySeverity[i]! }))].map((r) => (
            <tr key={r.severity}><th scope="row">{r.severity}</th><td>{duration(r.ack.p50Seconds)}</td><td>{duration(r.ack.p90Seconds)}</td><td>{duration(r.res.p50Seconds)}</td><td>{duration(r.res.p90Seconds)}</td><td>{r.res.count}</td></tr>
          ))}
        </DataTable>
      </section>

      <section aria-labelledby="agents-h">
        <h2 id="agents-h">Agents' verdicts</h2>
        <p className="muted small">Per assigned agent. A verdict is the agent's last status change on an alert (what the agent decided: an agent cannot close as a true positive); it is <strong>overturned</strong> when a person changed the status after it and the alert's status now differs from it — the honest measure of an agent's quality. The alerts' status now is mostly people's doing.</p>
        {a.agents.length === 0 ? <p className="state empty">No alert was assigned to an agent in the window.</p> : (
          <DataTable head={<><th scope="col">Agent</th><th scope="col">Alerts</th><th scope="col">Escalated</th><th scope="col">Agent decided: escalate</th><th scope="col">Agent decided: false positive</th><th scope="col">Agent decided: benign</th><th scope="col">Verdicts</th><th scope="col">Overturned by people</th><th scope="col">Now true positive</th><th scope="col">Not closed now</th><th scope="col">MTTA p50</th><th scope="col">MTTR p50</th></>}>
            {a.agents.map((g) => (
              <tr key={g.agentId}>
                <th scope="row"><Link to={`/agents/${g.agentId}`}>{g.agentName}</Link></th>
                <td>{g.alerts}</td>
                <td>{g.escalated} ({percent(g.escalationRate)})</td>
                <td>{g.decided.escalated}</td>
                <td>{g.decided.closed_false_positive}</td>
                <td>{g.decided.closed_benign}</td>
                <td>{g.verdicts}</td>
                <td>{g.overturned} ({percent(g.overturnRate)})</td>
                <td>{g.dispositions.closed_true_positive}</td>
                <td>{g.dispositions.not_closed}</td>
                <td>{duration(a.mtta.byAgent.find((m) => m.agentId === g.agentId)?.p50Seconds ?? null)}</td>
                <td>{duration(a.mttr.byAgent.find((m) => m.agentId === g.agentId)?.p50Seconds ?? null)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>

      {d.runs && (
        <section aria-labelledby="runs-h">
          <h2 id="runs-h">Agent runs</h2>
          <p className="muted small">Real runs only: {d.runs.totals.inputTokens + d.runs.totals.outputTokens} tokens in the window ({d.runs.totals.inputTokens} in, {d.runs.totals.outputTokens} out).</p>
          <p className="muted small">Evaluations (cases run in the sandbox), apart: {d.runs.evaluations.runs} runs, {d.runs.evaluations.inputTokens + d.runs.evaluations.outputTokens} tokens.</p>
          <div className="charts">
            <BarChart id="runs" title="Runs per day" labels={days} series={[
              { label: 'succeeded or running', values: d.runs.perDay.map((x) => x.runs - x.failed), color: '--c-2' },
              { label: 'failed', values: d.runs.perDay.map((x) => x.failed), color: '--c-critical' },
            ]} />
            <BarChart id="tokens" title="Tokens per day" labels={days} series={[{ label: 'tokens', values: d.runs.perDay.map((x) => x.tokens), color: '--c-3' }]} />
          </div>
        </section>
      )}

      {d.approvals && <ApprovalFigures x={d.approvals} />}

      {d.deliveries && (
        <section aria-labelledby="deliveries-h">
          <h2 id="deliveries-h">Deliveries</h2>
          {d.deliveries.byDestination.length === 0 ? <p className="state empty">No deliveries in the window.</p> : (
            <BarChart id="deliveries" title="Deliveries per destination" horizontal labels={d.deliveries.byDestination.map((x) => x.destinationName)}
              note={d.deliveries.byDestination.map((x) => `${x.destinationName}: ${percent(x.failureRate)} failed`).join(' · ')}
              series={[
                { label: 'succeeded', values: d.deliveries.byDestination.map((x) => x.succeeded), color: '--c-2' },
                { label: 'failed', values: d.deliveries.byDestination.map((x) => x.failed), color: '--c-critical' },
                { label: 'pending or retrying', values: d.deliveries.byDestination.map((x) => x.deliveries - x.succeeded - x.failed), color: '--c-medium' },
              ]} />
          )}
        </section>
      )}

      {d.intel && (
        <section aria-labelledby="intel-h">
          <h2 id="intel-h">Intel</h2>
          <div className="charts">
            <BarChart id="intel-items" title="Intel items per day by source" labels={days}
              series={d.intel.sources.slice(0, PALETTE.length).map((s, i) => ({ label: s.sourceName, values: d.intel!.perDay.map((x) => x.bySource[s.sourceId]?.items ?? 0), color: PALETTE[i]! }))} />
            <BarChart id="intel-indicators" title="Indicators per day by source" labels={days}
              series={d.intel.sources.slice(0, PALETTE.length).map((s, i) => ({ label: s.sourceName, values: d.intel!.perDay.map((x) => x.bySource[s.sourceId]?.indicators ?? 0), color: PALETTE[i]! }))} />
          </div>
          <div className="grid two">
            <div>
              <h3>Top ATT&CK techniques</h3>
              {d.intel.topTechniques.length === 0 ? <p className="state empty">None named in the window.</p> : (
                <DataTable head={<><th scope="col">Technique</th><th scope="col">Items</th></>}>
                  {d.intel.topTechniques.map((x) => <tr key={x.id}><th scope="row"><span className="mono">{x.id}</span> {x.name}</th><td>{x.items}</td></tr>)}
                </DataTable>
              )}
            </div>
            <div>
              <h3>Top threat actors</h3>
              {d.intel.topActors.length === 0 ? <p className="state empty">None named in the window.</p> : (
                <DataTable head={<><th scope="col">Actor</th><th scope="col">Items</th></>}>
                  {d.intel.topActors.map((x) => <tr key={x.name}><th scope="row">{x.name}</th><td>{x.items}</td></tr>)}
                </DataTable>
              )}
            </div>
          </div>
        </section>
      )}

      {d.hunt && (
        <section aria-labelledby="hunt-h">
          <h2 id="hunt-h">Hunt</h2>
          <BarChart id="hunt-bands" title="Threats by exposure band (now)" horizontal stacked={false} labels={d.hunt.byExposureBand.map((x) => x.band)}
            series={[{ label: 'Threats', values: d.hunt.byExposureBand.map((x) => x.count), color: '--c-high' }]} />
        </section>
      )}
      <p className="muted small">Computed {new Date(d.generatedAt).toLocaleString()} from the database, over UTC days since {d.from.slice(0, 10)}.</p>
    </>
  );
}

/** Approval requests of agents' tool calls (docs/approvals.md): the queue now, how fast people decide, and per agent and tool what they decided. */
function ApprovalFigures({ x }: { x: NonNullable<Insights['approvals']> }) {
  const label = (r: (typeof x.byAgentTool)[number]) => `${r.agentName || 'a deleted agent'} · ${r.toolName}`;
  return (
    <section aria-labelledby="approvals-h">
      <h2 id="approvals-h">Approvals</h2>
      <dl className="kpis" aria-label="Approvals">
        <div><dt>Pending now</dt><dd><Link to="/approvals">{x.pending}</Link></dd></div>
        <div><dt>Waiting since</dt><dd className="small">{x.oldestPendingAt ? new Date(x.oldestPendingAt).toLocaleString() : '—'}</dd></div>
        <div><dt>Time to decision p50</dt><dd>{duration(x.timeToDecision.p50Seconds)}</dd></div>
        <div><dt>Time to decision p90</dt><dd>{duration(x.timeToDecision.p90Seconds)}</dd></div>
        <div><dt>Decided by a person</dt><dd>{x.timeToDecision.count}</dd></div>
      </dl>
      <p className="muted small">Requests of the window. Time to decision runs from the request to a person's approval or denial (console, API or Slack); expired requests decide nothing and are counted apart.</p>
      {x.byAgentTool.length === 0 ? <p className="state empty">No tool call asked for approval in the window.</p> : (
        <BarChart id="approvals-agent-tool" title="Requests per agent and tool" horizontal labels={x.byAgentTool.map(label)}
          series={[
            { label: 'approved', values: x.byAgentTool.map((r) => r.approved), color: '--c-2' },
            { label: 'denied', values: x.byAgentTool.map((r) => r.denied), color: '--c-critical' },
            { label: 'expired', values: x.byAgentTool.map((r) => r.expired), color: '--c-medium' },
            { label: 'pending', values: x.byAgentTool.map((r) => r.pending), color: '--c-1' },
          ]} />
      )}
    </section>
  );
}
