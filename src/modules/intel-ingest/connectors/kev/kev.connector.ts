import { ConnectorError, type Connector, ConnectorParseError } from '../connector.js';
import { catalogReleased, entryFromKev, parseKevCatalog } from './kev.fns.js';

/**
 * `serverUrl`: the catalog JSON (https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json,
 * or a mirror). Conditional requests make an unchanged catalog one 304; the newest additions
 * are kept first, up to maxEntries.
 */
export const kevConnector: Connector = {
  async fetch(source, state, http) {
    if (!source.serverUrl) throw new ConnectorError('A CISA KEV source needs serverUrl (the catalog JSON)');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (state.etag) headers['if-none-match'] = state.etag;
    if (state.lastModified) headers['if-modified-since'] = state.lastModified;
    const res = await http.request(source.serverUrl, { headers, maxResponseBytes: 64 * 1024 * 1024 });
    if (res.status === 304) return { status: 'not_modified', entries: [], etag: state.etag, lastModified: state.lastModified };
    if (res.status >= 400) throw new ConnectorError(`The KEV source answered HTTP ${res.status} for ${res.url}`);
    let doc: unknown;
    try {
      doc = res.json();
    } catch {
      throw new ConnectorParseError('The KEV catalog is not valid JSON');
    }
    const released = catalogReleased(doc);
    const entries = parseKevCatalog(doc)
      .map((v) => entryFromKev(v, source.displayName, released))
      .sort((a, b) => (b.publishedAt ?? '').localeCompare(a.publishedAt ?? '') || a.externalId.localeCompare(b.externalId))
      .slice(0, source.maxEntries);
    return { status: 'ok', entries, etag: res.headers.etag ?? null, lastModified: res.headers['last-modified'] ?? null };
  },
};
