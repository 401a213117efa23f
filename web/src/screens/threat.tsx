import { useState } from 'react';
import { type Schemas } from '../api';
import { useDismissThreat, useReassessThreat, useRestoreThreat, useThreat } from '../api/threats';
import { Link } from '../router';
import { useSession } from '../session';
import { Badge, DataTable, ErrorText, Loadable, Page, SCORES, Time } from '../ui';
import { Epss } from './epss';
import { KevBadge } from './kev';
import { DeliverableCard, ExposureStory, RunDiff } from './threat-run';

export default function ThreatView({ params }: { params: Record<string, string> }) {
  const id = params.id!;
  const { can } = useSession();
  const view = useThreat(id);
  const [reason, setReason] = useState('');
  const dismiss = useDismissThreat(id);
  const restore = useRestoreThreat(id);
  const reassess = useReassessThreat(id);
  return (
    <Loadable query={view}>
      {(v) => (
        <Page title={v.threat.title} actions={<Link to="/hunt">Hunt board</Link>}>
          <dl className="facts">
            <dt>Status</dt><dd><Badge value={v.threat.status} /></dd>
            <dt>Estate relevancy</dt><dd><span title={SCORES.estate.help}>{Math.round(v.threat.relevancyScore)}</span> <span className="muted small">how much it concerns your inventory (not an intel item's general relevance)</span></dd>
            <dt>Exposure</dt><dd><Badge value={v.threat.exposureState} /> {Math.round(v.threat.exposureScore)}</dd>
            <dt>Coverage</dt><dd><Badge value={v.threat.coverageState} /></dd>
            <dt>Key</dt><dd className="mono">{v.threat.canonicalKey}</dd>
            {v.threat.epss && (<><dt>EPSS</dt><dd><Epss epss={v.threat.epss} /></dd></>)}
            {v.threat.knownExploited && (<><dt>Exploited</dt><dd><KevBadge kev={v.threat.knownExploited} /></dd></>)}
            {v.threat.dismissedReason && (<><dt>Dismissed</dt><dd>{v.threat.dismissedReason}</dd></>)}
          </dl>
          {can('hunt.manage') && (
            <div className="inline-form">
              {v.threat.status === 'dismissed' ? (
                <button type="button" onClick={() => restore.mutate()}>Restore</button>
              ) : (
                <form className="inline-form" onSubmit={(e) => { e.preventDefault(); dismiss.mutate(reason); }}>
                  <label className="field"><span>Reason</span><input value={reason} onChange={(e) => setReason(e.target.value)} required /></label>
                  <button type="submit">Dismiss</button>
                </form>
              )}
              <button type="button" onClick={() => reassess.mutate()}>Reassess</button>
            </div>
          )}
          <ErrorText error={dismiss.error ?? restore.error ?? reassess.error} />
          <Matches matches={v.matches} />
          <h2>Assessment runs</h2>
          {v.runs.length === 0 ? <p className="state empty">Not assessed yet.</p> : (
            <ol className="transcript">
              {v.runs.map((r) => (
                <li key={r.id}>
                  <Time at={r.runAt} /> <Badge value={r.kind} /> estate relevancy {Math.round(r.relevancyScore)} · exposure {Math.round(r.exposureScore)} <Badge value={r.exposureState} />
                  <p className="prose">{r.relevancyHeadline}</p>
                  {r.relevancyExplanation.length > 0 && <ul>{r.relevancyExplanation.map((x, i) => <li key={i}>{x}</li>)}</ul>}
                  <RunDiff run={r} previous={v.runs.find((p) => p.id === (r.diff as { prevRunId?: unknown } | null)?.prevRunId)} />
                  <ExposureStory story={r.exposureStory} />
                </li>
              ))}
            </ol>
          )}
          <h2>Deliverables</h2>
          {v.deliverables.length === 0 ? <p className="state empty">No deliverables.</p> : (
            <ul className="cards">
              {v.deliverables.map((d) => <DeliverableCard key={d.id} d={d} />)}
            </ul>
          )}
          <h2>Intel</h2>
          {v.intelItems.length === 0 ? <p className="state empty">No items.</p> : (
            <ul>{v.intelItems.map((i) => <li key={i.id}><Link to={`/intel/items/${i.id}`}>{i.title}</Link> <span className="muted">{i.sourceName}</span></li>)}</ul>
          )}
          <h2>Alerts</h2>
          {v.alerts.length === 0 ? <p className="state empty">No hunt alerts.</p> : (
            <ul>{v.alerts.map((a) => <li key={String(a.id)}><Link to={`/alerts/${String(a.id)}`}>{String(a.displayId ?? a.id)} {String(a.title ?? '')}</Link></li>)}</ul>
          )}
        </Page>
      )}
    </Loadable>
  );
}

type Match = Schemas['ThreatMatch'];

const EVIDENCE: Record<Match['evidence'], string> = { osv: 'OSV', csaf: 'CSAF', nvd: 'NVD', 'advisory-text': 'advisory text', kev: 'CISA KEV (no versions)' };

/** The latest run's package matches as the API sorts them (affected first): what the relevancy and explanation are derived from. */
function Matches({ matches }: { matches: Match[] }) {
  return (
    <section aria-labelledby="matches">
      <h2 id="matches">Matches</h2>
      {matches.length === 0 ? <p className="state empty">No software of the inventory matches.</p> : (
        <DataTable head={<><th scope="col">Asset</th><th scope="col">Product</th><th scope="col">Version</th><th scope="col">Verdict</th><th scope="col">Affected range</th><th scope="col">Fixed in</th><th scope="col">Evidence</th><th scope="col">Advisory</th></>}>
          {matches.map((m) => (
            <tr key={`${m.assetId}|${m.product}|${m.version ?? ''}|${m.advisoryId}`}>
              <td className="break" title={m.assetId}>{m.assetIdentifier}</td>
              <td><span className="break">{m.product}</span>{m.purl && <div className="muted small mono break">{m.purl}</div>}{!m.purl && m.cpe && <div className="muted small mono break">{m.cpe}</div>}</td>
              <td className="mono">{m.version ?? <span className="muted">none installed</span>}</td>
              <td><Badge value={m.verdict} /></td>
              <td className="mono">{m.affectedRange ?? '—'}</td>
              <td className="mono">{m.fixedVersion ?? '—'}</td>
              <td>{EVIDENCE[m.evidence]}</td>
              <td className="mono break">{m.evidence === 'advisory-text' ? <Link to={`/intel/items/${m.advisoryId}`}>intel item</Link> : m.advisoryId}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
