import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { Link, useSearch } from '../router';
import { useSession } from '../session';
import { Badge, ErrorText, Loadable, Page, Pager, Select, Time, pageOf, DataTable } from '../ui';
import { DestinationForm } from './destination-form';

/** Output destinations, and one destination's delivery log with redeliver and test-send. */
export default function Destinations({ params }: { params: Record<string, string> }) {
  const destinations = useQuery({ queryKey: ['destinations'], queryFn: () => unwrap(api.GET('/api/output-destinations')) });
  const { can } = useSession();
  const isNew = params.id === 'new';
  const selected = isNew ? undefined : params.id;
  const current = destinations.data?.find((x) => x.id === selected);
  const manage = can('destination.manage');
  return (
    <Page title="Destinations" actions={manage && !isNew ? <Link to="/destinations/new">New destination</Link> : undefined}>
      {isNew && manage && (
        <section aria-labelledby="new-destination">
          <h2 id="new-destination">New destination</h2>
          <DestinationForm />
        </section>
      )}
      <Loadable query={destinations} isEmpty={(d) => d.length === 0} empty="No output destinations yet.">
        {(d) => (
          <DataTable head={<><th scope="col">Destination</th><th scope="col">Type</th><th scope="col">Last delivery</th><th scope="col">Failures in a row</th><th scope="col">Events</th></>}>
            {d.map((x) => (
              <tr key={x.id} aria-current={x.id === selected ? 'true' : undefined}>
                <td><Link to={`/destinations/${x.id}`}>{x.name}</Link></td>
                <td>{x.type}</td>
                <td><Badge value={x.lastDeliveryStatus ?? 'none'} />{x.lastError && <div className="error small">{x.lastError}</div>}</td>
                <td>{x.consecutiveFailures}</td>
                <td className="small">{x.eventSubscriptions.join(', ')}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </Loadable>
      {current && manage && (
        <section aria-labelledby="edit-destination">
          <h2 id="edit-destination">Edit {current.name}</h2>
          <DestinationForm key={current.id} destination={current} />
        </section>
      )}
      {selected && <Deliveries id={selected} />}
    </Page>
  );
}

const STATUSES = ['pending', 'sending', 'succeeded', 'retrying', 'failed', 'skipped'];

function Deliveries({ id }: { id: string }) {
  const qc = useQueryClient();
  const { can } = useSession();
  const [search, set] = useSearch();
  const page = pageOf(search);
  const status = search.get('status');
  const query = { limit: 25, offset: (page - 1) * 25, ...(status ? { status } : {}) } as { limit: number; offset: number };
  const log = useQuery({ queryKey: ['deliveries', id, query], queryFn: () => unwrap(api.GET('/api/output-destinations/{id}/deliveries', { params: { path: { id }, query } })) });
  const refresh = () => qc.invalidateQueries({ queryKey: ['deliveries', id] });
  const redeliver = useMutation({ mutationFn: (deliveryId: string) => unwrap(api.POST('/api/output-destinations/{id}/deliveries/{deliveryId}/redeliver', { params: { path: { id, deliveryId } } })), onSuccess: refresh });
  const test = useMutation({ mutationFn: () => unwrap(api.POST('/api/output-destinations/{id}/test', { params: { path: { id } } })) });
  return (
    <section aria-labelledby="log">
      <h2 id="log">Delivery log</h2>
      <div className="filters">
        <Select label="Status" value={status ?? ''} options={STATUSES} onChange={(v) => set({ status: v })} />
        {can('destination.manage') && <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>Send a test message</button>}
        {test.data && <span role="status">{test.data.ok ? 'Test delivered' : 'Test failed'}{test.data.status ? ` (HTTP ${test.data.status})` : ''}: {test.data.message}</span>}
      </div>
      <ErrorText error={test.error ?? redeliver.error} />
      <Loadable query={log} isEmpty={(d) => d.deliveries.length === 0} empty="No deliveries yet.">
        {(d) => (
          <>
            <DataTable head={<><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Response</th><th scope="col">Last attempt</th><th scope="col"><span className="sr-only">Actions</span></th></>}>
              {d.deliveries.map((x) => (
                <tr key={x.id}>
                  <td>{x.eventKind}</td>
                  <td><Badge value={x.status} />{x.error && <div className="error small">{x.error}</div>}</td>
                  <td>{x.attemptCount}</td>
                  <td>{x.responseStatus ?? '—'} <span className="muted small">{x.responseExcerpt}</span></td>
                  <td><Time at={x.lastAttemptAt} /></td>
                  <td>{can('destination.manage') && <button type="button" onClick={() => redeliver.mutate(x.id)}>Redeliver</button>}</td>
                </tr>
              ))}
            </DataTable>
            <Pager page={page} perPage={25} total={d.totalCount} />
          </>
        )}
      </Loadable>
    </section>
  );
}
