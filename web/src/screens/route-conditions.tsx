import { type Paths } from '../api';
import { useCodeDetections } from '../api/detections';
import { Select } from '../ui';
import { SEVERITIES } from './alerts';
import { ALERT_SOURCES } from './shared';

type Saved = Paths['/api/alert-triage-routes']['put']['requestBody'] extends { content: { 'application/json': infer B } } ? B : never;
export type Route = Saved['routes'][number];
export type Condition = Route['conditions'][number];
type Severity = (typeof SEVERITIES)[number];
type Of<T extends Condition['type']> = Extract<Condition, { type: T }>;
export type LogTableOption = { source: string; sourceDisplayName: string; stream: string; streamLabel: string };

export const tableKey = (t: { source: string; stream: string }) => `${t.source}/${t.stream}`;
export const tableLabel = (o: LogTableOption) => `${o.sourceDisplayName} · ${o.streamLabel}`;

/** What a route's source condition may name: every alert source but `hunt` (hunt alerts skip the routes). */
const ROUTE_SOURCES = ALERT_SOURCES.filter((s) => s !== 'hunt');

const toggle = <T,>(list: T[], value: T, on: boolean) => (on ? [...list, value] : list.filter((x) => x !== value));

/**
 * Every condition type a route accepts (all must match): severity, source, code detection and
 * log table. Each type appears at most once; an empty choice drops the condition.
 */
export function Conditions({ conditions, logTables, onChange, routeName }: { conditions: Condition[]; logTables: LogTableOption[]; onChange: (c: Condition[]) => void; routeName: string }) {
  const detections = useCodeDetections();
  const find = <T extends Condition['type']>(type: T) => conditions.find((c): c is Of<T> => c.type === type);
  const sevs = find('severity')?.severities ?? [];
  // Plain strings: a route saved before sources were checked may hold one the server no longer accepts (shown, so it can be unticked).
  const srcs: string[] = find('source')?.sources ?? [];
  const codeIds = find('codeDetection')?.codeDetectionIds ?? [];
  const table = find('logTable');
  const set = (next: { sevs?: Severity[]; srcs?: string[]; codeIds?: string[]; table?: { source: string; stream: string } | null }) => {
    const s = next.sevs ?? sevs;
    const src = next.srcs ?? srcs;
    const ids = next.codeIds ?? codeIds;
    const t = next.table === undefined ? table : next.table;
    onChange([
      ...(s.length ? [{ type: 'severity' as const, severities: s }] : []),
      ...(src.length ? [{ type: 'source' as const, sources: src as Of<'source'>['sources'] }] : []),
      ...(ids.length ? [{ type: 'codeDetection' as const, codeDetectionIds: ids }] : []),
      ...(t ? [{ type: 'logTable' as const, source: t.source, stream: t.stream }] : []),
    ]);
  };
  // A saved id the list does not show (beyond the first 200, or deleted) is kept and shown by id.
  const known = detections.data ?? [];
  const unknownIds = codeIds.filter((id) => !known.some((d) => d.id === id));
  return (
    <fieldset className="conditions" aria-label={`Conditions of ${routeName}`}>
      <legend>Matches when</legend>
      <fieldset>
        <legend>Severity is one of</legend>
        {SEVERITIES.map((s) => (
          <label key={s} className="check">
            <input type="checkbox" checked={sevs.includes(s)} onChange={(e) => set({ sevs: toggle(sevs, s, e.target.checked) })} /> {s}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Source is one of</legend>
        {[...ROUTE_SOURCES, ...srcs.filter((x) => !ROUTE_SOURCES.includes(x))].map((x) => (
          <label key={x} className="check">
            <input type="checkbox" checked={srcs.includes(x)} onChange={(e) => set({ srcs: toggle(srcs, x, e.target.checked) })} /> {x}
          </label>
        ))}
      </fieldset>
      <Select
        label="Log table"
        value={table ? tableKey(table) : ''}
        any="Any log table"
        options={[
          ...logTables.map((o) => [tableKey(o), tableLabel(o)] as [string, string]),
          ...(table && !logTables.some((o) => tableKey(o) === tableKey(table)) ? [[tableKey(table), tableKey(table)] as [string, string]] : []),
        ]}
        onChange={(v) => {
          const o = logTables.find((x) => tableKey(x) === v);
          set({ table: o ? { source: o.source, stream: o.stream } : v && table ? table : null });
        }}
      />
      <fieldset>
        <legend>Code detection is one of</legend>
        {detections.isError && <p className="muted small">Code detections could not be listed.</p>}
        {detections.data && known.length === 0 && unknownIds.length === 0 && <p className="muted small">No code detections registered.</p>}
        {known.map((d) => (
          <label key={d.id} className="check">
            <input type="checkbox" checked={codeIds.includes(d.id)} onChange={(e) => set({ codeIds: toggle(codeIds, d.id, e.target.checked) })} /> {d.name}
          </label>
        ))}
        {unknownIds.map((id) => (
          <label key={id} className="check">
            <input type="checkbox" checked onChange={() => set({ codeIds: codeIds.filter((x) => x !== id) })} /> {id}
          </label>
        ))}
      </fieldset>
    </fieldset>
  );
}
