import { ConnectorParseError } from '../connector.js';

/**
 * A CSAF provider's distribution (CSAF 2.0 §7.1): `provider-metadata.json` lists ROLIE feeds
 * (§7.1.20) and/or directories whose `changes.csv` (§7.1.16) names each advisory with the time
 * it last changed. Pure, no I/O: URLs resolved against the document they were read from.
 */
export interface CsafChange {
  url: string;
  /** ISO 8601 UTC. */
  updated: string;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function resolve(href: string, base: string): string | null {
  try {
    const u = new URL(href, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : null;
  } catch {
    return null;
  }
}

function isoOf(v: string | null): string | null {
  if (!v) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

export function distributionsOf(metadata: Obj, base: string): { feeds: string[]; directories: string[] } {
  const feeds: string[] = [];
  const directories: string[] = [];
  for (const d of arr(metadata.distributions)) {
    const dir = str(obj(d)?.directory_url);
    const resolved = dir && resolve(dir.endsWith('/') ? dir : `${dir}/`, base);
    if (resolved) directories.push(resolved);
    for (const f of arr(obj(obj(d)?.rolie)?.feeds)) {
      const url = str(obj(f)?.url);
      const r = url && resolve(url, base);
      if (r) feeds.push(r);
    }
  }
  return { feeds: [...new Set(feeds)], directories: [...new Set(directories)] };
}

/** A ROLIE feed's entries: the advisory's URL (`content.src`, else the `self` link) and `updated`. */
export function changesFromRolie(doc: unknown, base: string): CsafChange[] {
  const feed = obj(obj(doc)?.feed);
  if (!feed) throw new ConnectorParseError('The ROLIE feed has no `feed` object');
  const out: CsafChange[] = [];
  for (const e of arr(feed.entry)) {
    const entry = obj(e);
    if (!entry) continue;
    const self = arr(entry.link).map(obj).find((l) => str(l?.rel) === 'self');
    const href = str(obj(entry.content)?.src) ?? str(self?.href);
    const url = href && resolve(href, base);
    const updated = isoOf(str(entry.updated) ?? str(entry.published));
    if (url && updated) out.push({ url, updated });
  }
  return out;
}

/** `changes.csv`: `"2023/x-2023-001.json","2023-07-01T10:00:00Z"` per line, paths relative to the directory. */
export function changesFromCsv(text: string, directory: string): CsafChange[] {
  const out: CsafChange[] = [];
  for (const line of text.split(/\r?\n/)) {
    const cells = [...line.matchAll(/"((?:[^"]|"")*)"|([^,]+)/g)].map((m) => (m[1] ?? m[2] ?? '').replace(/""/g, '"').trim());
    if (cells.length < 2) continue;
    const url = resolve(cells[0]!, directory);
    const updated = isoOf(cells[1]!);
    if (url && updated) out.push({ url, updated });
  }
  return out;
}
