import { useDetection, useDetectionActivity, useDetectionNoisyFields } from '../api/detections';
import { Link } from '../router';
import { Badge, CopyButton, DataTable, Loadable, ManagedByCode, Page, Time } from '../ui';
import { BarChart } from './chart';
import { DetectionQuery } from './detection-query';
import { DetectionTests } from './detection-tests';

/**
 * A code detection's page (docs/detections.md#the-console-page): what it is, what it matched
 * (last match, matches per day, latest matched events, its noisiest rule fields), its tests and
 * their result, its query in each SIEM's language, and its Sigma source.
 */
const DAYS = 30;

/** A top-level key of the rule's YAML (`level: high`), read without a YAML parser: Sigma writes these as plain scalars. */
const topLevel = (text: string | null, key: string) => (text ? new RegExp(`^${key}:[ \\t]*['"]?([^'"\\n#]+?)['"]?[ \\t]*(#.*)?$`, 'm').exec(text)?.[1] ?? null : null);

/** Every day of the window, oldest first, with the days without a match at 0 (the API lists only days with matches). */
function daysOf(perDay: Array<{ day: string; matches: number }>): { labels: string[]; values: number[] } {
  const counts = new Map(perDay.map((d) => [d.day, d.matches]));
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const days = Array.from({ length: DAYS }, (_, i) => new Date(today - (DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
  return { labels: days, values: days.map((d) => counts.get(d) ?? 0) };
}

export default function DetectionView({ params }: { params: Record<string, string> }) {
  const id = params.id!;
  const detection = useDetection(id);
  return (
    <Loadable query={detection}>
      {(d) => {
        const isSigma = !!d.query && /^\s*detection\s*:/m.test(d.query);
        const level = topLevel(d.query, 'level');
        return (
          <Page title={d.name} actions={<Link to="/detections">All detections</Link>}>
            <dl className="facts" aria-label="Detection">
              <dt>Level</dt><dd>{level ? <Badge value={level} /> : '—'}</dd>
              <dt>Severity of its alerts</dt><dd><Badge value={d.severity} /></dd>
              <dt>Status</dt><dd><Badge value={d.status} /> <ManagedByCode resource={d} /></dd>
              <dt>Log source</dt><dd className="mono">{d.logTable ? `${d.logTable.source} / ${d.logTable.stream}` : '—'}</dd>
              <dt>ATT&CK</dt><dd>{d.attackTechniques.length ? d.attackTechniques.map((t) => <a key={t} href={`https://attack.mitre.org/techniques/${t.replace('.', '/')}/`} target="_blank" rel="noreferrer">{t} </a>) : '—'}</dd>
              <dt>Rule id</dt><dd className="mono">{d.ruleId ?? '—'}</dd>
              <dt>Updated</dt><dd><Time at={d.updatedAt} /></dd>
            </dl>
            {d.description && <p className="pre-wrap">{d.description}</p>}
            <Activity id={id} />
            {isSigma ? (
              <>
                <DetectionTests id={id} />
                <DetectionQuery id={id} />
              </>
            ) : <p className="state empty">Its query is not a Sigma rule: it does not run on events, has no tests and no conversion.</p>}
            <section aria-labelledby="source-h">
              <h2 id="source-h">{isSigma ? 'Sigma source' : 'Query'}</h2>
              {d.query ? (
                <>
                  <div className="copy-row"><CopyButton value={d.query} label="the rule text" /></div>
                  <pre className="code-block" tabIndex={0} aria-label="Rule text (read-only)">{d.query}</pre>
                </>
              ) : <p className="state empty">No rule text.</p>}
            </section>
          </Page>
        );
      }}
    </Loadable>
  );
}

/** Last match, matches per day and the latest matched events (GET …/activity), then the noisiest rule fields (GET …/noisy-fields). */
function Activity({ id }: { id: string }) {
  const activity = useDetectionActivity(id, { days: DAYS, samples: 5 });
  const noisy = useDetectionNoisyFields(id, { limit: 10 });
  return (
    <section aria-labelledby="activity-h">
      <h2 id="activity-h">Matches</h2>
      <Loadable query={activity}>
        {(a) => {
          const { labels, values } = daysOf(a.matchesPerDay);
          return (
            <>
              <dl className="kpis" aria-label="Matches summary">
                <div><dt>Last match</dt><dd>{a.lastMatchedAt ? <Time at={a.lastMatchedAt} /> : 'never'}</dd></div>
                <div><dt>Matches, last {DAYS} days</dt><dd>{a.matchesInWindow}</dd></div>
              </dl>
              <BarChart id="matches-per-day" title={`Matches per day (last ${DAYS} days, UTC)`} labels={labels} series={[{ label: 'Matches', values, color: '--c-1' }]} />
              <h3>Latest matched events</h3>
              {a.samples.length === 0 ? <p className="state empty">No event matched yet.</p> : (
                <DataTable head={<><th scope="col">Matched</th><th scope="col">Rule</th><th scope="col">Alert</th><th scope="col">Event</th></>}>
                  {a.samples.map((s, i) => (
                    <tr key={`${s.matchedAt}-${i}`}>
                      <td><Time at={s.matchedAt} /></td>
                      <td>{s.ruleTitle}</td>
                      <td>{s.alertId ? <Link to={`/alerts/${s.alertId}`}>Open alert</Link> : '—'}</td>
                      <td><pre className="excerpt mono" tabIndex={0} aria-label={`Matched event ${i + 1}`}>{JSON.stringify(s.event, null, 1)}</pre></td>
                    </tr>
                  ))}
                </DataTable>
              )}
            </>
          );
        }}
      </Loadable>
      <h3>Noisiest rule fields</h3>
      <Loadable query={noisy}>
        {(n) => n.fields.length === 0 ? <p className="state empty">Nothing matched yet (or only keyword selections, which name no field).</p> : (
          <>
            <p className="muted small">Over the latest {n.sampledEvents} matched events: the fields the rule names in the selections that matched, with the events' values. The top one is what a filter would silence most.</p>
            <DataTable head={<><th scope="col">Field</th><th scope="col">Value</th><th scope="col">Matched events</th><th scope="col">Selections</th></>}>
              {n.fields.map((f) => (
                <tr key={`${f.field}\u0000${f.value}`}>
                  <td className="mono">{f.field}</td>
                  <td className="mono">{f.value}</td>
                  <td>{f.matches}</td>
                  <td className="mono">{f.selections.join(', ')}</td>
                </tr>
              ))}
            </DataTable>
          </>
        )}
      </Loadable>
    </section>
  );
}
