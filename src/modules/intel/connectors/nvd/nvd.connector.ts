import { ConnectorError, type Connector } from '../connector.js';
import { ConnectorParseError } from '../types.js';
import { entryFromNvd, parseNvdPage } from './nvd.fns.js';

/**
 * `serverUrl`: an NVD CVE API 2.0 URL (e.g. `https://services.nvd.nist.gov/rest/json/cves/2.0?lastModStartDate=…`)
 * or a file of the same shape on a mirror. `apiKey` goes in NVD's `apiKey` header. One page per sync.
 */
export const nvdConnector: Connector = {
  async fetch(source, state, http) {
    if (!source.serverUrl) throw new ConnectorError('An NVD source needs serverUrl (a CVE API 2.0 URL or a file of its JSON)');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (source.apiKey) headers.apiKey = source.apiKey;
    if (state.etag) headers['if-none-match'] = state.etag;
    if (state.lastModified) headers['if-modified-since'] = state.lastModified;
    const res = await http.request(source.serverUrl, { headers, maxResponseBytes: 128 * 1024 * 1024, timeoutMs: 120_000 });
    if (res.status === 304) return { status: 'not_modified', entries: [], etag: state.etag, lastModified: state.lastModified };
    if (res.status >= 400) throw new ConnectorError(`The NVD source answered HTTP ${res.status} for ${res.url}`);
    let doc: unknown;
    try {
      doc = res.json();
    } catch {
      throw new ConnectorParseError('The NVD answer is not valid JSON');
    }
    const entries = parseNvdPage(doc)
      .map((c) => entryFromNvd(c, source.displayName))
      .sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? '') || a.externalId.localeCompare(b.externalId))
      .slice(0, source.maxEntries);
    return { status: 'ok', entries, etag: res.headers.etag ?? null, lastModified: res.headers['last-modified'] ?? null };
  },
};
