import type { Paths } from '../api';
import { Badge, Time } from '../ui';

type View = Paths['/api/threats/{id}']['get']['responses'][200]['content']['application/json'];
type Run = View['runs'][number];
type Deliverable = View['deliverables'][number];

/** The stored JSON of a run is read defensively: a field of another shape is skipped, never shown raw. */
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');
const texts = (v: unknown): string[] => list(v).map(text).filter(Boolean);
const words = (v: unknown) => text(v).replaceAll('_', ' ');

/** What changed since the previous run, as "before → after" lines (or the reason in words when there are none). */
export function RunDiff({ run, previous }: { run: Run; previous?: Run }) {
  const d = obj(run.diff);
  const changes: Array<[string, string, string]> = [];
  if (previous && previous.relevancyScore !== run.relevancyScore) changes.push(['estate relevancy', String(Math.round(previous.relevancyScore)), String(Math.round(run.relevancyScore))]);
  // A first run has no "before" (the API fills in defaults): its reason says so.
  if (d.prevRunId) for (const [label, key] of [['exposure score', 'ExposureScore'], ['exposure', 'ExposureState'], ['coverage', 'CoverageState']] as const) {
    const [before, after] = [words(d[`before${key}`]), words(d[`after${key}`])];
    if (before && after && before !== after) changes.push([label, before, after]);
  }
  // The reasons say the same as the before → after lines; they are shown when there are none ("First assessment.", "No change.").
  const reasons = changes.length ? [] : texts(d.reasons);
  if (!changes.length && !reasons.length) return null;
  return (
    <section className="run-text" aria-label="What changed">
      <h3>What changed</h3>
      <ul>
        {changes.map(([label, before, after]) => <li key={label}>{label} {before} → {after}</li>)}
        {reasons.map((r, i) => <li key={i} className="muted">{r}</li>)}
      </ul>
    </section>
  );
}

function Items({ title, items }: { title: string; items: string[] }) {
  if (!items.length) return null;
  return (
    <>
      <h3>{title}</h3>
      <ul>{items.map((x, i) => <li key={i}>{x}</li>)}</ul>
    </>
  );
}

/** The exposure story of a run as text: headline, summary, next steps, findings, gaps and the timeline. */
export function ExposureStory({ story }: { story: unknown }) {
  const s = obj(story);
  const timeline = list(s.timeline).map(obj);
  return (
    <details className="run-text">
      <summary>Exposure story{text(s.headline) && `: ${text(s.headline)}`}</summary>
      <Items title="Summary" items={texts(s.summary)} />
      <Items title="Next steps" items={texts(s.nextSteps)} />
      <Items title="Indicators found" items={list(s.iocFindings).map(obj).map((f) => `${text(f.iocValue)} (${words(f.iocType)}, ${words(f.role)})${texts(f.affectedSystems).length ? ` on ${texts(f.affectedSystems).join(', ')}` : ''}: ${text(f.evidence)}`)} />
      <Items title="Assets" items={list(s.assets).map(obj).map((a) => `${text(a.identifier)}${a.internetFacing === true ? ' (internet-facing)' : ''}: ${text(a.evidence)}`)} />
      <Items title="Observations" items={list(s.observations).map(obj).map((o) => text(o.summary))} />
      <Items title="Detection gaps" items={list(s.gaps).map(obj).map((g) => `${text(g.product)} · ${text(g.logSource)}${g.blocking === true ? ' (blocking)' : ''}: ${text(g.description)}`)} />
      {timeline.length > 0 && (
        <>
          <h3>Timeline</h3>
          <ol>{timeline.map((e, i) => <li key={i}><Time at={text(e.timestamp) || null} /> {text(e.description)}</li>)}</ol>
        </>
      )}
    </details>
  );
}

export function DeliverableCard({ d }: { d: Deliverable }) {
  return (
    <li className="card">
      <strong>{d.intent}</strong>
      <dl className="facts">
        <dt>Status</dt><dd><Badge value={d.lifecycleStatus} />{d.supersededById && <> <span className="muted">superseded by a newer proposal</span></>}</dd>
        <dt>Target</dt><dd>{d.targetProduct} · {d.targetLogSource}</dd>
        <dt>Proposed</dt><dd><Time at={d.createdAt} /></dd>
        {d.pinnedIocs.length > 0 && (<><dt>Pinned indicators</dt><dd>{d.pinnedIocs.map((p) => `${p.value} (${p.type})`).join(', ')}</dd></>)}
        {d.pullRequestUrl && /^https?:\/\//i.test(d.pullRequestUrl) && (<><dt>Pull request</dt><dd><a href={d.pullRequestUrl} rel="noopener noreferrer" target="_blank">{d.pullRequestUrl}</a></dd></>)}
      </dl>
      <details><summary>Rule</summary><pre className="json">{d.content}</pre></details>
    </li>
  );
}
