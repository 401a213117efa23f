import { useState, type ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { Link, useSearch } from './router';

export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-head">
        <h1 id="page-title">{title}</h1>
        {actions && <div className="actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

/** Loading, error and empty states for every query-backed view. */
export function Loadable<T>({ query, empty, isEmpty, children }: { query: UseQueryResult<T>; empty?: string; isEmpty?: (data: T) => boolean; children: (data: T) => ReactNode }) {
  if (query.isPending) return <p className="state" role="status" aria-live="polite">Loading…</p>;
  if (query.isError) {
    return (
      <div className="state error" role="alert">
        <p>Could not load: {query.error.message}</p>
        <button type="button" onClick={() => void query.refetch()}>Retry</button>
      </div>
    );
  }
  if (isEmpty?.(query.data)) return <p className="state empty">{empty ?? 'Nothing here yet.'}</p>;
  return <>{children(query.data)}</>;
}

/** A table of rows with column headings (`head`: the `<th scope="col">` cells), scrolling sideways on narrow screens. */
export function DataTable({ head, children }: { head: ReactNode; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table>
        <thead><tr>{head}</tr></thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null;
  return <p className="error" role="alert">{error instanceof Error ? error.message : String(error)}</p>;
}

export function Pager({ page, perPage, total, hasNext }: { page: number; perPage: number; total?: number; hasNext?: boolean }) {
  const [, set] = useSearch();
  const last = total !== undefined ? Math.max(1, Math.ceil(total / perPage)) : undefined;
  const next = hasNext ?? (last !== undefined && page < last);
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => set({ page: String(page - 1) })}>Previous</button>
      <span>
        Page {page}
        {last !== undefined && ` of ${last}`}
        {total !== undefined && ` · ${total} in all`}
      </span>
      <button type="button" disabled={!next} onClick={() => set({ page: String(page + 1) })}>Next</button>
    </nav>
  );
}

export const pageOf = (search: URLSearchParams) => Math.max(1, Number(search.get('page') ?? 1) || 1);

export function Badge({ value, kind }: { value: string | null | undefined; kind?: string }) {
  if (!value) return <span className="muted">—</span>;
  return <span className={`badge ${kind ?? ''} v-${value.replace(/[^a-z0-9_-]/gi, '')}`}>{value.replaceAll('_', ' ')}</span>;
}

/**
 * A resource applied from a repository (`rampart apply`, docs/agents-as-code.md): the API refuses
 * edits without `force`, so the console shows why its edit buttons are off.
 */
export function ManagedByCode({ resource }: { resource: { managedBy?: string | null; managedSource?: string | null; driftedFromCodeAt?: string | null } }) {
  if (resource.managedBy !== 'code') return null;
  const from = resource.managedSource ? ` (source ${resource.managedSource})` : '';
  const badge = <span className="badge managed" title={`Applied from code${from}: change its file in the repository and apply it`}>managed by code</span>;
  if (!resource.driftedFromCodeAt) return badge;
  // A forced edit or restore: the agent differs from its file until the next apply puts the file back.
  return <>{badge} <span className="badge drifted">drifted from code since <Time at={resource.driftedFromCodeAt} /></span></>;
}

export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">—</span>;
  const d = new Date(at);
  return <time dateTime={at} title={d.toISOString()}>{d.toLocaleString()}</time>;
}

export function CopyButton({ value, label }: { value: string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      className="copy"
      aria-label={`Copy ${label}`}
      onClick={() => {
        void navigator.clipboard?.writeText(value).then(() => setDone(true), () => setDone(false));
        setTimeout(() => setDone(false), 1500);
      }}
    >
      {done ? 'Copied' : 'Copy'}
    </button>
  );
}

export function Select({ label, value, options, onChange, any = 'Any' }: { label: string; value: string; options: Array<string | [string, string]>; onChange: (v: string) => void; any?: string | null }) {
  return (
    <label className="field">
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {any !== null && <option value="">{any}</option>}
        {options.map((o) => {
          const [v, text] = typeof o === 'string' ? [o, o.replaceAll('_', ' ')] : o;
          return <option key={v} value={v}>{text}</option>;
        })}
      </select>
    </label>
  );
}

/** A search box that updates the URL when submitted (Enter), so a search can be shared. */
export function SearchBox({ label = 'Search', param = 'search' }: { label?: string; param?: string }) {
  const [search, set] = useSearch();
  const [value, setValue] = useState(search.get(param) ?? '');
  return (
    <form role="search" className="field search" onSubmit={(e) => { e.preventDefault(); set({ [param]: value.trim() || null }); }}>
      <label>
        <span>{label}</span>
        <input type="search" value={value} onChange={(e) => setValue(e.target.value)} />
      </label>
      <button type="submit">Search</button>
    </form>
  );
}

export function Tabs({ items }: { items: Array<[string, string]> }) {
  return (
    <nav className="tabs" aria-label="Sections">
      {items.map(([to, text]) => (
        <Link key={to} to={to} aria-current={location.pathname === to ? 'page' : undefined}>{text}</Link>
      ))}
    </nav>
  );
}

export function Json({ value }: { value: unknown }) {
  return <pre className="json">{JSON.stringify(value, null, 2)}</pre>;
}

/**
 * A run id readable at a glance: the last 8 characters of the UUIDv7 (its random part; the first
 * 8 are a timestamp that two runs of the same minute share), the whole id on hover and to copy.
 */
export const shortRunId = (id: string) => `…${id.slice(-8)}`;

/**
 * Two scores that must not read as one scale: an intel item's `relevance` says how notable it is
 * in general; a hunt threat's `relevancyScore` how much it concerns this organization's estate.
 */
export const SCORES = {
  general: { name: 'general relevance', help: 'General relevance (0–100) of an intel item: how notable it is for anyone — severity, indicators, CVEs, ATT&CK techniques, known exploitation. It knows nothing about your assets.' },
  estate: { name: 'estate relevancy', help: 'Estate relevancy (0–100) of a hunt threat: how much it concerns your inventory — products and versions you run, internet exposure, criticality — from the hunt assessment.' },
} as const;

export function Score({ kind, value }: { kind: keyof typeof SCORES; value: number }) {
  return <span className="score" title={SCORES[kind].help}>{SCORES[kind].name} <strong>{Math.round(value)}</strong></span>;
}
