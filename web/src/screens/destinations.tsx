import { type Schemas } from '../api';
import { useDeliveries, useDestinationHealth, useDestinations, useRedeliver, useTestDestination } from '../api/destinations';
import { Link, useSearch } from '../router';
import { useSession } from '../session';
import { Badge, ErrorText, Loadable, ManagedByCode, Page, Pager, Select, Time, pageOf, DataTable } from '../ui';
import { DestinationForm } from './destination-form';

/** Output destinations, and one destination's delivery log with redeliver and test-send. */
export default function Destinations({ params }: { params: Record<string, string> }) {
  const destinations = useDestinations();
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
        {(d) => <DestinationList destinations={d} selected={selected} />}
      </Loadable>
      {current && manage && current.managedBy !== 'code' && (
        <section aria-labelledby="edit-destination">
          <h2 id="edit-destination">Edit {current.name}</h2>
          <DestinationForm key={current.id} destination={current} />
        </section>
      )}
      {selected && <Deliveries id={selected} />}
    </Page>
  );
}

/**
 * The list with each destination's health: the listing (cached, hot) has none, so each row asks
 * GET …/{id}, which answers the latest attempt's outcome and time and the failures since the
 * last success. Slack's blocked channels come with the config.
 */
function DestinationList({ destinations, selected }: { destinations: Array<{ id: string; name: string; type: string; eventSubscriptions: string[]; config: unknown; managedBy?: string | null; managedSource?: string | null }>; selected?: string | undefined }) {
  const health = useDestinationHealth(destinations.map((x) => x.id));
  return (
    <DataTable head={<><th scope="col">Destination</th><th scope="col">Type</th><th scope="col">Last delivery</th><th scope="col">Failures in a row</th><th scope="col">Events</th></>}>
      {destinations.map((x, i) => {
        const h = health[i]?.data as Schemas['OutputDestination'] | undefined;
        const blocked = Object.keys((x.config as { blockedChannels?: Record<string, unknown> }).blockedChannels ?? {});
        return (
          <tr key={x.id} aria-current={x.id === selected ? 'true' : undefined}>
            <td><Link to={`/destinations/${x.id}`}>{x.name}</Link> <ManagedByCode resource={x} /></td>
            <td>{x.type}</td>
            <td>
              {!h ? <span className="muted">…</span> : h.lastDeliveryStatus ? <><Badge value={h.lastDeliveryStatus} /> <Time at={h.lastDeliveryAt} /></> : <span className="muted">never delivered</span>}
              {h?.lastError && <div className="error small">{h.lastError}</div>}
              {blocked.length > 0 && <div className="error small">{blocked.length} Slack channel{blocked.length > 1 ? 's' : ''} blocked (archived): {blocked.join(', ')}. Saving the destination unblocks them.</div>}
            </td>
            <td className={h?.consecutiveFailures ? 'error' : undefined}>{h ? h.consecutiveFailures ?? 0 : '…'}</td>
            <td className="small">{x.eventSubscriptions.join(', ') || <span className="muted">agent output only</span>}</td>
          </tr>
        );
      })}
    </DataTable>
  );
}

const STATUSES = ['pending', 'sending', 'succeeded', 'retrying', 'failed', 'skipped'];

function Deliveries({ id }: { id: string }) {
  const { can } = useSession();
  const [search, set] = useSearch();
  const page = pageOf(search);
  const status = search.get('status');
  const query = { limit: 25, offset: (page - 1) * 25, ...(status ? { status } : {}) } as { limit: number; offset: number };
  const log = useDeliveries(id, query);
  const redeliver = useRedeliver(id);
  const test = useTestDestination(id);
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
                  <td><Badge value={x.status} />{x.error && <div className="error small">{x.error}</div>}{x.nextAttemptAt && x.status === 'retrying' && <div className="muted small">next try <Time at={x.nextAttemptAt} /></div>}</td>
                  <td>
                    {x.attempts.length === 0 ? x.attemptCount : (
                      <details className="attempts">
                        <summary>{x.attemptCount} attempt{x.attemptCount === 1 ? '' : 's'}</summary>
                        <p className="small muted">Request: {x.destinationType} delivery of <code>{x.eventKind}</code>, event id <code>{x.eventId}</code> (the same on every retry).</p>
                        <ol className="small">
                          {x.attempts.map((at) => (
                            <li key={at.attempt}>
                              <Badge value={at.outcome} /> <Time at={at.startedAt} /> · {at.durationMs} ms · {at.responseStatus ? `HTTP ${at.responseStatus}` : 'no answer'}
                              {at.error && <div className="error">{at.error}</div>}
                              {at.responseExcerpt && <pre className="excerpt">{at.responseExcerpt}</pre>}
                            </li>
                          ))}
                        </ol>
                      </details>
                    )}
                  </td>
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
