import { ConnectorError, type Connector } from '../connector.js';
import { parseEpss } from './epss.fns.js';

/**
 * `serverUrl`: the EPSS CSV (https://epss.cyentia.com/epss_scores-current.csv.gz or a mirror).
 * No intel items: the scores are stored per CVE (the sync job writes `scores`) and shown on the
 * threats of those CVEs. Conditional requests make an unchanged file one 304.
 */
export const epssConnector: Connector = {
  async fetch(source, state, http) {
    if (!source.serverUrl) throw new ConnectorError('An EPSS source needs serverUrl (the EPSS scores CSV, gzip or plain)');
    const headers: Record<string, string> = { accept: 'text/csv, application/gzip' };
    if (state.etag) headers['if-none-match'] = state.etag;
    if (state.lastModified) headers['if-modified-since'] = state.lastModified;
    const res = await http.request(source.serverUrl, { headers, maxResponseBytes: 64 * 1024 * 1024, timeoutMs: 120_000 });
    if (res.status === 304) return { status: 'not_modified', entries: [], etag: state.etag, lastModified: state.lastModified };
    if (res.status >= 400) throw new ConnectorError(`The EPSS source answered HTTP ${res.status} for ${res.url}`);
    return { status: 'ok', entries: [], scores: parseEpss(res.body), etag: res.headers.etag ?? null, lastModified: res.headers['last-modified'] ?? null };
  },
};
