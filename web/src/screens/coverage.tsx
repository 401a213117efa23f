import { useCoverage, useCoverageTechnique } from '../api/coverage';
import { useDetectionActivity } from '../api/detections';
import { Link, useSearch } from '../router';
import { DataTable, Loadable, Page, SearchBox, Select, Time } from '../ui';
import { IntelNotice } from './coverage-intel-notice';
import { Matrix } from './coverage-matrix';
import { STATE_LABEL } from './coverage-labels';

/**
 * ATT&CK coverage (GET /api/coverage/attack): a matrix of the techniques the intel names or a
 * detection covers, tactics as columns, coloured by state; a technique's panel (its detections and
 * the intel behind it); the top gaps; Navigator layer downloads. The URL holds window, filters and
 * the selected technique.
 */
const WINDOWS: Array<[string, string]> = [['30d', 'Last 30 days'], ['90d', 'Last 90 days'], ['180d', 'Last 180 days'], ['365d', 'Last year']];

export default function CoverageView() {
  const [search, set] = useSearch();
  const window = search.get('window') ?? '90d';
  const actor = search.get('actor') ?? undefined;
  const malware = search.get('malware') ?? undefined;
  const selected = search.get('technique');
  const query = { window, ...(actor ? { actor } : {}), ...(malware ? { malware } : {}) };
  const report = useCoverage(query);
  const layerUrl = (view: string) => `/api/coverage/attack/navigator-layer?${new URLSearchParams({ ...query, view })}`;
  return (
    <Page
      title="ATT&CK coverage"
      actions={<>
        <Select label="Window" value={window} any={null} options={WINDOWS} onChange={(v) => set({ window: v === '90d' ? null : v })} />
        <SearchBox label="Actor" param="actor" />
        <SearchBox label="Malware" param="malware" />
      </>}
    >
      <p className="muted small">
        Techniques the intel of the window names, against the code detections covering them (a sub-technique counts for its parent).
        Navigator layers: <a href={layerUrl('coverage')} download>coverage</a> · <a href={layerUrl('intel')} download>intel</a> · <a href={layerUrl('gaps')} download>gaps</a>
      </p>
      <Loadable query={report}>
        {(d) => (
          <>
            <dl className="kpis" aria-label="Summary">
              <div><dt>Covered</dt><dd>{d.summary.covered}</dd></div>
              <div><dt>Experimental only</dt><dd>{d.summary.coveredExperimentalOnly}</dd></div>
              <div><dt>Gaps</dt><dd>{d.summary.gap}</dd></div>
              <div><dt>Not seen in intel</dt><dd>{d.summary.unused}</dd></div>
              <div><dt>● Matched events</dt><dd>{d.summary.matched}</dd></div>
              <div><dt>○ On paper only</dt><dd>{d.summary.onPaper}</dd></div>
            </dl>
            <ul className="coverage-legend" aria-label="Legend">
              {Object.entries(STATE_LABEL).map(([s, label]) => <li key={s}><span className={`cov-${s}`} aria-hidden="true" /> {label}</li>)}
            </ul>
            <IntelNotice status={d.intelStatus} />
            <Matrix tactics={d.tactics} techniques={d.techniques} catalogVersion={d.catalog.version} selected={selected} onSelect={(id) => set({ technique: id }, { keepPage: true })} />
            {selected && <TechniquePanel id={selected} query={query} onClose={() => set({ technique: null }, { keepPage: true })} />}
            <section aria-labelledby="gaps-h">
              <h2 id="gaps-h">Top gaps</h2>
              {d.topGaps.length === 0 ? <p className="state empty">{d.intelStatus.comparable ? 'No gap: every technique the intel names is covered.' : d.intelStatus.message}</p> : (
                <DataTable head={<><th scope="col">Technique</th><th scope="col">Items</th><th scope="col">Actors</th><th scope="col">Malware</th><th scope="col">Last seen</th><th scope="col">Latest items</th></>}>
                  {d.topGaps.map((g) => (
                    <tr key={g.techniqueId}>
                      <th scope="row"><button type="button" className="link" onClick={() => set({ technique: g.techniqueId }, { keepPage: true })}>{g.techniqueId} {g.name}</button></th>
                      <td>{g.intel.items}</td>
                      <td>{g.actors.map((a) => a.name).join(', ') || '—'}</td>
                      <td>{g.malware.map((m) => m.name).join(', ') || '—'}</td>
                      <td><Time at={g.intel.lastSeenAt} /></td>
                      <td>{g.recentItems.slice(0, 3).map((i) => <div key={i.id}><Link to={`/intel/items/${i.id}`}>{i.title}</Link></div>)}</td>
                    </tr>
                  ))}
                </DataTable>
              )}
            </section>
          </>
        )}
      </Loadable>
    </Page>
  );
}

function TechniquePanel({ id, query, onClose }: { id: string; query: { window: string; actor?: string; malware?: string }; onClose: () => void }) {
  const detail = useCoverageTechnique(id, query);
  return (
    <section aria-labelledby="technique-h" className="panel">
      <Loadable query={detail}>
        {(t) => (
          <>
            <h2 id="technique-h">{t.techniqueId} {t.inCatalog ? t.name : <em className="muted">unknown to the catalog (v{t.catalog.version})</em>} <span className="muted small">{t.state ? STATE_LABEL[t.state] : 'neither intel nor detections'}</span></h2>
            {!t.inCatalog && <p className="small">The ATT&CK catalog Rampart reads (v{t.catalog.version}{t.catalog.refreshedAt ? ', refreshed by the MITRE ATT&CK source' : ''}) does not know {t.techniqueId} yet: detections naming it count under this id. A sync of the built-in MITRE ATT&CK source brings its name and tactics.</p>}
            <p><a href={`https://attack.mitre.org/techniques/${t.techniqueId}/`} target="_blank" rel="noreferrer">ATT&CK page</a> · <button type="button" className="link" onClick={onClose}>Close</button></p>
            <h3>Detections ({t.detections.length})</h3>
            {t.detections.length === 0 ? <p className="state empty">No detection covers it.</p> : (
              <DataTable head={<><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Severity</th><th scope="col">Techniques</th><th scope="col">Last match</th><th scope="col">Matches per day (30 days)</th></>}>
                {t.detections.map((x) => <tr key={x.id}><th scope="row"><Link to={`/detections/${x.id}`}>{x.name}</Link></th><td>{x.status}</td><td>{x.severity}</td><td>{x.attackTechniques.join(', ')}</td><DetectionActivity id={x.id} /></tr>)}
              </DataTable>
            )}
            <h3>Intel ({t.intel.items} items, {t.intel.actors} actors, {t.intel.malware} malware)</h3>
            <p>Actors: {t.intel.actorNames.map((a) => `${a.name} (${a.items})`).join(', ') || '—'}. Malware: {t.intel.malwareNames.map((m) => `${m.name} (${m.items})`).join(', ') || '—'}.</p>
            <ul>{t.intel.recentItems.map((i) => <li key={i.id}><Link to={`/intel/items/${i.id}`}>{i.title}</Link> <Time at={i.seenAt} /></li>)}</ul>
            {t.external.length > 0 && (
              <>
                <h3>Declared elsewhere (imported layers)</h3>
                <ul>{t.external.map((e) => <li key={`${e.layer}-${e.techniqueId}`}>{e.layer}: {e.techniqueId}{e.score !== null ? ` (score ${e.score})` : ''} {e.comment}</li>)}</ul>
              </>
            )}
          </>
        )}
      </Loadable>
    </section>
  );
}

/** A detection's last match and matches per day (GET /api/code-detections/{id}/activity), as two cells. */
function DetectionActivity({ id }: { id: string }) {
  const activity = useDetectionActivity(id);
  const a = activity.data;
  if (!a) return <><td>…</td><td>…</td></>;
  return (
    <>
      <td>{a.lastMatchedAt ? <Time at={a.lastMatchedAt} /> : 'never'}</td>
      <td>{a.matchesPerDay.length === 0 ? '—' : a.matchesPerDay.map((d) => `${d.day.slice(5)}: ${d.matches}`).join(' · ')}</td>
    </>
  );
}
