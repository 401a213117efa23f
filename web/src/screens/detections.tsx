import { useDetectionList } from '../api/detections';
import { Link, useSearch } from '../router';
import { Badge, DataTable, Loadable, ManagedByCode, Page, Pager, Time, pageOf } from '../ui';

/**
 * The organization's code detections (GET /api/code-detections): each links to its page
 * (detection.tsx) with its rule, tests, matches and conversions.
 */
export default function Detections() {
  const [search] = useSearch();
  const page = pageOf(search);
  const list = useDetectionList({ limit: 50, offset: (page - 1) * 50 });
  return (
    <Page title="Detections">
      <p className="muted small">Sigma rules run on the events sent to Rampart (POST /api/events); other detections are registered for coverage and reported hits.</p>
      <Loadable query={list} isEmpty={(d) => d.codeDetections.length === 0} empty="No detections yet: import Sigma rules (POST /api/code-detections/import) or apply CodeDetection documents.">
        {(d) => (
          <>
            <DataTable head={<><th scope="col">Detection</th><th scope="col">Status</th><th scope="col">Severity</th><th scope="col">Log source</th><th scope="col">ATT&CK</th><th scope="col">Updated</th></>}>
              {d.codeDetections.map((x) => (
                <tr key={x.id}>
                  <td><Link to={`/detections/${x.id}`}>{x.name}</Link> <ManagedByCode resource={x} /></td>
                  <td><Badge value={x.status} /></td>
                  <td><Badge value={x.severity} /></td>
                  <td className="mono">{x.logTable ? `${x.logTable.source} / ${x.logTable.stream}` : '—'}</td>
                  <td>{x.attackTechniques.join(', ') || '—'}</td>
                  <td><Time at={x.updatedAt} /></td>
                </tr>
              ))}
            </DataTable>
            <Pager page={page} perPage={50} total={d.totalCount} />
          </>
        )}
      </Loadable>
    </Page>
  );
}
