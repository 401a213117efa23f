import { useRef } from 'react';
import type { components } from '../api/schema';
import { EVIDENCE_LABEL, EVIDENCE_MARK, STATE_LABEL } from './coverage-labels';

type Report = components['schemas']['TechniqueCoverage'];
type Tactic = { tactic: string; name: string; techniques: number; covered: number; gap: number };

/**
 * The ATT&CK matrix (issue 47 item 13): every tactic of the catalog as a column (14 for
 * Enterprise, empty ones included, so the matrix keeps ATT&CK's shape), and a last column for
 * techniques the catalog does not know (item 14). Wider than a screen, it scrolls sideways in a
 * region that takes the keyboard focus (arrow keys scroll it) with a visible scrollbar, a cue, and
 * a row of tactic links that bring any column (Exfiltration, Impact, …) into view.
 */
export function Matrix({ tactics, techniques, catalogVersion, selected, onSelect }: {
  tactics: Tactic[];
  techniques: Report[];
  catalogVersion: string;
  selected: string | null;
  onSelect: (techniqueId: string) => void;
}) {
  const region = useRef<HTMLDivElement>(null);
  const unknown = techniques.filter((x) => !x.inCatalog);
  const columns = [
    ...tactics.map((t) => ({ key: t.tactic, name: t.name, note: `${t.covered} covered · ${t.gap} gaps · ${t.techniques} techniques`, cells: techniques.filter((x) => x.tactics.includes(t.tactic)) })),
    ...(unknown.length ? [{ key: 'unknown-to-catalog', name: `Unknown to the catalog (v${catalogVersion})`, note: `${unknown.length} technique id(s) newer than the catalog`, cells: unknown }] : []),
  ];
  const show = (key: string) => {
    const column = region.current?.querySelector<HTMLElement>(`[data-tactic="${key}"]`);
    column?.scrollIntoView({ block: 'nearest', inline: 'start' });
    column?.querySelector<HTMLElement>('h3')?.focus();
  };
  return (
    <section aria-labelledby="matrix-h">
      <h2 id="matrix-h">Matrix</h2>
      <nav aria-label="Tactics" className="coverage-tactics small">
        {columns.length} columns — the matrix scrolls sideways (focus it and use the arrow keys, or pick a tactic):{' '}
        {columns.map((c, i) => <span key={c.key}>{i > 0 && ' · '}<button type="button" className="link" onClick={() => show(c.key)}>{c.name}</button></span>)}
      </nav>
      <div ref={region} className="coverage-matrix" role="region" aria-label="ATT&CK matrix, scrolls sideways" tabIndex={0}>
        <div role="list" className="coverage-columns">
          {columns.map((c) => (
            <div key={c.key} data-tactic={c.key} className={`coverage-column${c.key === 'unknown-to-catalog' ? ' unknown' : ''}`} role="listitem">
              <h3 tabIndex={-1}>{c.name}</h3>
              <p className="muted small">{c.note}</p>
              {c.cells.length === 0 ? <p className="muted small">—</p> : (
                <ul>
                  {c.cells.map((x) => (
                    <li key={x.techniqueId}>
                      <button type="button" className={`coverage-cell cov-${x.state}`} aria-pressed={selected === x.techniqueId}
                        title={`${STATE_LABEL[x.state]}: ${x.detections.total} detection(s), ${x.intel.items} intel item(s); ${EVIDENCE_LABEL[x.evidence]}${x.matches.events ? ` (${x.matches.events} events)` : ''}`} onClick={() => onSelect(x.techniqueId)}>
                        {EVIDENCE_MARK[x.evidence] && <span aria-label={EVIDENCE_LABEL[x.evidence]}>{EVIDENCE_MARK[x.evidence]} </span>}<strong>{x.techniqueId}</strong> {x.inCatalog ? x.name : <em>unknown to the catalog (v{catalogVersion})</em>}
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          ))}
        </div>
      </div>
    </section>
  );
}
