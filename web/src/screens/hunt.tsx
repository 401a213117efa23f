import { type Query } from '../api';
import { useThreats } from '../api/threats';
import { Link, useSearch } from '../router';
import { Epss } from './epss';
import { HuntAlertSettings } from './hunt-settings';
import { KevBadge } from './kev';
import { Badge, Loadable, Page, Pager, SCORES, SearchBox, Select, pageOf, DataTable } from '../ui';

/** EPSS probability floors (0..1 in the API): the share of CVEs above each is small, so these already narrow a long list. */
const EPSS: Array<[string, string]> = [['0.01', '1 %+'], ['0.1', '10 %+'], ['0.5', '50 %+']];
const EXPOSURE = ['compromise_signal_found', 'vulnerable_software_present', 'possibly_affected', 'not_affected'];

/** The hunt board: threats by relevancy and exposure. */
export default function Hunt() {
  const [search, set] = useSearch();
  const page = pageOf(search);
  const query = {
    limit: 50,
    offset: (page - 1) * 50,
    ...Object.fromEntries(['status', 'exposureState', 'search', 'minRelevancy', 'minEpss', 'knownExploited'].flatMap((k) => (search.get(k) ? [[k, search.get(k)]] : []))),
  } as Query<'/api/threats'>;
  const threats = useThreats(query);
  return (
    <Page title="Hunt">
      <div className="filters">
        <Select label="Status" value={search.get('status') ?? ''} options={['new', 'relevant', 'not_relevant', 'dismissed']} onChange={(v) => set({ status: v })} />
        <Select label="Exposure" value={search.get('exposureState') ?? ''} options={EXPOSURE} onChange={(v) => set({ exposureState: v })} />
        <Select label="Min estate relevancy" value={search.get('minRelevancy') ?? ''} options={[['40', '40+'], ['70', '70+']]} onChange={(v) => set({ minRelevancy: v })} />
        <Select label="Min EPSS" value={search.get('minEpss') ?? ''} options={EPSS} onChange={(v) => set({ minEpss: v })} />
        <Select label="CISA KEV" value={search.get('knownExploited') ?? ''} options={[['true', 'In KEV'], ['false', 'Not in KEV']]} onChange={(v) => set({ knownExploited: v })} />
        <SearchBox />
      </div>
      <p className="muted small">{SCORES.estate.help} An intel item's general relevance says how notable it is for anyone, not for you.</p>
      <Loadable query={threats} isEmpty={(d) => d.threats.length === 0} empty="No threats match.">
        {(d) => (
          <>
            <DataTable head={<><th scope="col">Threat</th><th scope="col">Estate relevancy</th><th scope="col">Exposure</th><th scope="col">EPSS</th><th scope="col">KEV</th><th scope="col">Coverage</th><th scope="col">Status</th></>}>
              {[...d.threats].sort((a, b) => b.relevancyScore - a.relevancyScore || b.exposureScore - a.exposureScore).map((t) => (
                <tr key={t.id}>
                  <td><Link to={`/hunt/${t.id}`}>{t.title}</Link> <span className="muted mono small">{t.canonicalKey}</span></td>
                  <td><meter min={0} max={100} value={t.relevancyScore} aria-label="Estate relevancy" /> {Math.round(t.relevancyScore)}</td>
                  <td><Badge value={t.exposureState} /> {Math.round(t.exposureScore)}</td>
                  <td>{t.epss ? <Epss epss={t.epss} /> : <span className="muted">—</span>}</td>
                  <td>{t.knownExploited ? <KevBadge kev={t.knownExploited} /> : <span className="muted">—</span>}</td>
                  <td><Badge value={t.coverageState} /></td>
                  <td><Badge value={t.status} /></td>
                </tr>
              ))}
            </DataTable>
            <Pager page={page} perPage={50} total={d.totalCount} />
          </>
        )}
      </Loadable>
      <HuntAlertSettings />
    </Page>
  );
}
