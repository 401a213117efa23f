import { ConnectorError, type Connector } from '../connector.js';
import type { IntelEntry } from '../types.js';
import { entryFromOsv, forEachOsvRecord } from './osv.fns.js';

/** The largest OSV download read (a per-ecosystem all.zip of npm is ~60 MB; PyPI's ~25 MB). */
const MAX_BYTES = 256 * 1024 * 1024;

/**
 * An OSV source: `serverUrl` is a zip of OSV records (the layout of OSV's per-ecosystem
 * `all.zip`, e.g. https://osv-vulnerabilities.storage.googleapis.com/npm/all.zip), a JSON
 * array of records, or NDJSON — a mirror on the local network works the same (docs/hunt.md).
 * Conditional requests (ETag / Last-Modified) make an unchanged export cost one 304; records
 * are kept newest-modified first up to maxEntries.
 */
export const osvConnector: Connector = {
  async fetch(source, state, http) {
    if (!source.serverUrl) throw new ConnectorError('An OSV source needs serverUrl (a zip, JSON array or NDJSON of OSV records)');
    const headers: Record<string, string> = { accept: 'application/zip, application/json, application/x-ndjson' };
    if (source.apiKey) headers.authorization = `Bearer ${source.apiKey}`;
    if (state.etag) headers['if-none-match'] = state.etag;
    if (state.lastModified) headers['if-modified-since'] = state.lastModified;
    const res = await http.request(source.serverUrl, { headers, maxResponseBytes: MAX_BYTES, timeoutMs: 300_000 });
    if (res.status === 304) return { status: 'not_modified', entries: [], etag: state.etag, lastModified: state.lastModified };
    if (res.status >= 400) throw new ConnectorError(`The OSV source answered HTTP ${res.status} for ${res.url}`);
    // The newest-modified maxEntries records, kept while the document is read record by record.
    const newestFirst = (a: IntelEntry, b: IntelEntry) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? '') || a.externalId.localeCompare(b.externalId);
    let entries: IntelEntry[] = [];
    forEachOsvRecord(res.body, (r) => {
      const e = entryFromOsv(r, source.displayName);
      if (!e) return;
      entries.push(e);
      if (entries.length >= 2 * source.maxEntries) entries = entries.sort(newestFirst).slice(0, source.maxEntries);
    });
    entries = entries.sort(newestFirst).slice(0, source.maxEntries);
    return { status: 'ok', entries, etag: res.headers.etag ?? null, lastModified: res.headers['last-modified'] ?? null };
  },
};
