import type { ReactNode } from 'react';
import { type Schemas } from '../api';
import { useItem } from '../api/items';
import { Link } from '../router';
import { Badge, Loadable, Page, Score, Time } from '../ui';

type Annotated = Schemas['IntelItemDetail']['annotatedText'];

/**
 * The item reader. Feed text is shown as text (React escapes it; the feed's HTML is never
 * rendered), with each extracted indicator highlighted at the exact span the API gives, and
 * each rejected candidate marked with the reason.
 */
export default function ItemReader({ params }: { params: Record<string, string> }) {
  const id = params.id!;
  const item = useItem(id);
  return (
    <Loadable query={item}>
      {(i) => (
        <Page title={i.event.title} actions={<Link to="/intel/items">All items</Link>}>
          <div className="meta">
            <Badge value={i.severity} /> <Badge value={i.status} /> <span>{i.source.name}</span> <Time at={i.source.publishTime || i.createdAt} /> <Score kind="general" value={i.relevance} />
            {i.source.url && /^https?:\/\//i.test(i.source.url) && <a href={i.source.url} rel="noopener noreferrer nofollow" target="_blank">Original</a>}
          </div>
          {i.summary && <p className="prose">{i.summary}</p>}
          <div className="grid reader">
            <article aria-label="Item text" className="item-text">
              <AnnotatedText annotated={i.annotatedText} />
            </article>
            <aside aria-label="Indicators">
              <h2>Indicators ({i.annotatedText.indicators.length})</h2>
              {i.annotatedText.indicators.length === 0 ? <p className="state empty">No indicators in the text.</p> : (
                <ul className="ioc-list">
                  {uniqueBy(i.annotatedText.indicators, (x) => `${x.type}:${x.normalizedValue}`).map((x) => (
                    <li key={`${x.type}:${x.normalizedValue}`}>
                      <span className="badge">{x.type}</span> <Link to={`/intel/iocs?search=${encodeURIComponent(x.normalizedValue)}`} className="mono break">{x.normalizedValue}</Link>{' '}
                      <span className="muted">confidence {Math.round(x.confidence * 100)}%</span>
                    </li>
                  ))}
                </ul>
              )}
              {i.annotatedText.rejected.length > 0 && (
                <>
                  <h2>Rejected candidates</h2>
                  <ul className="ioc-list">
                    {i.annotatedText.rejected.map((x) => (
                      <li key={`${x.start}`}><span className="mono break">{x.value}</span> <span className="muted">{x.type}: {x.reason}</span></li>
                    ))}
                  </ul>
                </>
              )}
              {i.cves.length > 0 && (<><h2>CVEs</h2><p>{i.cves.join(', ')}</p></>)}
              {i.classification.attack.length > 0 && (
                <><h2>ATT&amp;CK</h2><ul>{i.classification.attack.map((t) => <li key={t.technique + t.subTechnique}>{t.subTechnique || t.technique} {t.techniqueName}</li>)}</ul></>
              )}
            </aside>
          </div>
        </Page>
      )}
    </Loadable>
  );
}

function uniqueBy<T>(xs: T[], key: (x: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const x of xs) if (!seen.has(key(x))) seen.set(key(x), x);
  return [...seen.values()];
}

/** Text with <mark> at each indicator span and a dotted underline at each rejected candidate. */
export function AnnotatedText({ annotated }: { annotated: Annotated }) {
  const { text } = annotated;
  const marks = [
    ...annotated.indicators.map((x) => ({ ...x, kind: 'ioc' as const, label: `${x.type}, confidence ${Math.round(x.confidence * 100)}%` })),
    ...annotated.rejected.map((x) => ({ ...x, kind: 'rejected' as const, label: `not kept (${x.type}): ${x.reason}` })),
  ].sort((a, b) => a.start - b.start);
  const out: ReactNode[] = [];
  let at = 0;
  for (const m of marks) {
    if (m.start < at || m.end > text.length) continue; // overlapping spans: the first wins
    if (m.start > at) out.push(text.slice(at, m.start));
    out.push(
      m.kind === 'ioc' ? (
        <mark key={m.start} className={`ioc t-${m.type}`} title={m.label} data-type={m.type} tabIndex={0} aria-label={`${text.slice(m.start, m.end)}: ${m.label}`}>
          {text.slice(m.start, m.end)}
        </mark>
      ) : (
        <span key={m.start} className="rejected" title={m.label}>{text.slice(m.start, m.end)}</span>
      ),
    );
    at = m.end;
  }
  out.push(text.slice(at));
  return <div className="prose pre-wrap">{out}</div>;
}
