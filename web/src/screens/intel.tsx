import { useState } from 'react';
import { type Paths, type Query } from '../api';
import { fetchAllIocs, useIocs } from '../api/iocs';
import { useItems } from '../api/items';
import { useAddSource, useSources, useSyncSource } from '../api/sources';
import { Link, useSearch } from '../router';
import { useSession } from '../session';
import { Badge, ErrorText, Loadable, Page, Pager, SCORES, Score, SearchBox, Select, Tabs, Time, pageOf, DataTable } from '../ui';
import { csvRow } from '../../../src/platform/csv';

const TABS: Array<[string, string]> = [['/intel/items', 'Items'], ['/intel/sources', 'Sources'], ['/intel/iocs', 'IOC search']];

export default function Intel({ params }: { params: Record<string, string> }) {
  const tab = params.tab;
  return (
    <Page title="Intel">
      <Tabs items={TABS} />
      {tab === 'sources' ? <Sources /> : tab === 'iocs' ? <Iocs /> : <Items />}
    </Page>
  );
}

function Sources() {
  const { can } = useSession();
  // A sync runs in the background: polled while one is queued or running.
  const sources = useSources();
  const sync = useSyncSource();
  return (
    <>
      {can('intel.manage') && <AddRssSource />}
      <ErrorText error={sync.error} />
      <Loadable query={sources} isEmpty={(d) => d.sources.length === 0} empty="No sources yet: add an RSS feed above.">
        {(d) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr><th scope="col">Source</th><th scope="col">Kind</th><th scope="col">Health</th><th scope="col">Last fetched</th><th scope="col">Items (24 h)</th><th scope="col">Sync</th></tr>
              </thead>
              <tbody>
                {d.sources.map((s) => (
                  <tr key={s.id}>
                    <td><Link to={`/intel/items?source=${s.id}`}>{s.displayName}</Link> {!s.enabled && <Badge value="disabled" />}</td>
                    <td>{s.kind}{s.apiType ? ` · ${s.apiType}` : ''}</td>
                    <td><Badge value={s.lastStatus ?? 'never'} />{s.lastError && <div className="error small">{s.lastError}</div>}</td>
                    <td><Time at={s.lastFetchedAt} /></td>
                    <td>{s.itemCountLast24h}</td>
                    <td>
                      {s.syncJob && <Badge value={s.syncJob.status} />}{' '}
                      {can('intel.manage') && <button type="button" onClick={() => sync.mutate(s.id)} aria-label={`Sync ${s.displayName} now`}>Sync now</button>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loadable>
    </>
  );
}

function AddRssSource() {
  const [name, setName] = useState('');
  const [feedUrl, setFeedUrl] = useState('');
  const add = useAddSource();
  const submit = () => add.mutate({ kind: 'rss', name, displayName: name, feedUrl }, { onSuccess: () => { setName(''); setFeedUrl(''); } });
  return (
    <form className="inline-form" onSubmit={(e) => { e.preventDefault(); submit(); }} aria-label="Add an RSS source">
      <label className="field"><span>Name</span><input value={name} onChange={(e) => setName(e.target.value)} required /></label>
      <label className="field grow"><span>Feed URL</span><input type="url" value={feedUrl} onChange={(e) => setFeedUrl(e.target.value)} required /></label>
      <button type="submit" disabled={add.isPending}>Add RSS source</button>
      <ErrorText error={add.error} />
    </form>
  );
}

const ITEM_SEVERITIES = ['critical', 'high', 'medium', 'low', 'none'];

function Items() {
  const [search, set] = useSearch();
  const page = pageOf(search);
  const query = {
    page,
    perPage: 25,
    ...Object.fromEntries(['severity', 'status', 'source', 'search', 'platform', 'minRelevance', 'scope'].flatMap((k) => (search.get(k) ? [[k, search.get(k)]] : []))),
  } as Query<'/items'>;
  const items = useItems(query);
  const sources = items.data?.outputs.sources ?? [];
  return (
    <>
      <div className="filters">
        <Select label="Severity" value={search.get('severity') ?? ''} options={ITEM_SEVERITIES} onChange={(v) => set({ severity: v })} />
        <Select label="Status" value={search.get('status') ?? ''} options={['active', 'corrected', 'retracted']} onChange={(v) => set({ status: v })} />
        <Select label="Source" value={search.get('source') ?? ''} options={sources.map((s) => [s.id, `${s.name} (${s.count})`] as [string, string])} onChange={(v) => set({ source: v })} />
        <Select label="Platform" value={search.get('platform') ?? ''} options={['windows', 'linux', 'macos', 'network', 'cloud', 'mobile']} onChange={(v) => set({ platform: v })} />
        <Select label="Min general relevance" value={search.get('minRelevance') ?? ''} options={[['40', '40+'], ['70', '70+']]} onChange={(v) => set({ minRelevance: v })} />
        <Select label="Scope" value={search.get('scope') ?? ''} any="All items" options={[['relevant', 'Relevant, no duplicates']]} onChange={(v) => set({ scope: v })} />
        <SearchBox />
      </div>
      <p className="muted small">{SCORES.general.help} How much a threat concerns you is its estate relevancy, on the Hunt board.</p>
      <Loadable query={items} isEmpty={(d) => d.items.length === 0} empty="No items match these filters.">
        {(d) => (
          <>
            <ul className="cards">
              {d.items.map((i) => (
                <li key={i.id} className="card">
                  <Link to={`/intel/items/${i.id}`}><strong>{i.event.title}</strong></Link>
                  <div className="meta"><Badge value={i.severity} /> <span>{i.source.name}</span> <Time at={i.source.publishTime || i.createdAt} /> <Score kind="general" value={i.relevance} /></div>
                  {i.tldr && <p>{i.tldr}</p>}
                </li>
              ))}
            </ul>
            <Pager page={page} perPage={d.perPage} total={d.total} hasNext={d.hasNext} />
          </>
        )}
      </Loadable>
    </>
  );
}

type IocRow = Paths['/iocs']['get']['responses'][200]['content']['application/json']['rows'][number];

function Iocs() {
  const [search, set] = useSearch();
  const page = pageOf(search);
  const filters = Object.fromEntries(['status', 'type', 'search'].flatMap((k) => (search.get(k) ? [[k, search.get(k)]] : [])));
  const query = { page, perPage: 50, ...filters } as Query<'/iocs'>;
  const iocs = useIocs(query);
  const exportHref = `/iocs?${new URLSearchParams({ ...filters, perPage: '100' } as Record<string, string>).toString()}`;
  return (
    <>
      <div className="filters">
        <SearchBox label="Indicator" />
        <Select label="Type" value={search.get('type') ?? ''} options={iocs.data?.availableTypes ?? []} onChange={(v) => set({ type: v })} />
        <a className="button" href={exportHref} download="iocs.json">Export (JSON)</a>
        <button type="button" onClick={() => void exportCsv(filters)}>Export CSV</button>
      </div>
      {iocs.data && (
        <nav className="chips" aria-label="Status">
          {(['found', 'clean', 'unchecked', 'unknown'] as const).map((s) => (
            <button key={s} type="button" aria-pressed={search.get('status') === s} onClick={() => set({ status: search.get('status') === s ? null : s })}>
              {s} <span className="count">{iocs.data.statusCounts[s]}</span>
            </button>
          ))}
        </nav>
      )}
      <Loadable query={iocs} isEmpty={(d) => d.rows.length === 0} empty="No indicators match.">
        {(d) => (
          <>
            <DataTable head={<><th scope="col">Indicator</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Item</th><th scope="col">Source</th><th scope="col">Checked</th></>}>
              {d.rows.map((r: IocRow) => (
                <tr key={r.id}>
                  <td className="mono break">{r.value}</td>
                  <td>{r.type}</td>
                  <td><Badge value={r.status} /></td>
                  <td><Link to={`/intel/items/${r.intelItemId}`}>{r.intelTitle}</Link></td>
                  <td>{r.sourceLabel}</td>
                  <td><Time at={r.lastCheckedAt} /></td>
                </tr>
              ))}
            </DataTable>
            <Pager page={page} perPage={d.perPage} total={d.total} hasNext={d.hasNext} />
          </>
        )}
      </Loadable>
    </>
  );
}

/** Every matching indicator (up to 5,000) as CSV, built in the page from the paged API. */
async function exportCsv(filters: Record<string, string | null>) {
  const rows = await fetchAllIocs(filters);
  // The server's one CSV cell rule (OWASP CSV injection): an indicator or source name is text.
  const csv = csvRow(['value', 'type', 'status', 'item', 'source', 'lastCheckedAt']) + rows.map((r) => csvRow([r.value, r.type, r.status, r.intelTitle, r.sourceLabel, r.lastCheckedAt])).join('');
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
  a.download = 'iocs.csv';
  a.click();
  URL.revokeObjectURL(a.href);
}
