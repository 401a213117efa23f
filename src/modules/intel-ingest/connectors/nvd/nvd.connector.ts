import { setTimeout as sleep } from 'node:timers/promises';
import { ConnectorError, type Connector, ConnectorParseError } from '../connector.js';
import type { IntelEntry } from '../../../intel/index.js';
import { entryFromNvd, nextPageUrl, parseNvdPage } from './nvd.fns.js';

/**
 * `serverUrl`: an NVD CVE API 2.0 URL (e.g. `https://services.nvd.nist.gov/rest/json/cves/2.0?lastModStartDate=…`)
 * or a file of the same shape on a mirror. `apiKey` goes in NVD's `apiKey` header. A sync reads
 * every page of the answer (`startIndex` moved by `resultsPerPage` until `totalResults`), up to
 * `maxEntries` CVEs; against NVD itself it waits between pages as NVD asks (5 requests per 30 s
 * without a key, 50 with one). The ETag/Last-Modified of the first page says whether anything changed.
 */
const NVD_HOST = 'services.nvd.nist.gov';
const PAGE_GAP_MS = { withKey: 700, withoutKey: 6_500 };

export const nvdConnector: Connector = {
  async fetch(source, state, http) {
    if (!source.serverUrl) throw new ConnectorError('An NVD source needs serverUrl (a CVE API 2.0 URL or a file of its JSON)');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (source.apiKey) headers.apiKey = source.apiKey;
    const conditional: Record<string, string> = {};
    if (state.etag) conditional['if-none-match'] = state.etag;
    if (state.lastModified) conditional['if-modified-since'] = state.lastModified;
    const entries: IntelEntry[] = [];
    let url: string | null = source.serverUrl;
    let validators: { etag: string | null; lastModified: string | null } | null = null;
    // A server that ignores startIndex would send the same page forever: each URL is read once.
    const read = new Set<string>();
    while (url && !read.has(url)) {
      read.add(url);
      const res = await http.request(url, { headers: validators ? headers : { ...headers, ...conditional }, maxResponseBytes: 128 * 1024 * 1024, timeoutMs: 120_000 });
      if (!validators && res.status === 304) return { status: 'not_modified', entries: [], etag: state.etag, lastModified: state.lastModified };
      if (res.status >= 400) throw new ConnectorError(`The NVD source answered HTTP ${res.status} for ${res.url}`);
      let doc: unknown;
      try {
        doc = res.json();
      } catch {
        throw new ConnectorParseError('The NVD answer is not valid JSON');
      }
      validators ??= { etag: res.headers.etag ?? null, lastModified: res.headers['last-modified'] ?? null };
      entries.push(...parseNvdPage(doc).map((c) => entryFromNvd(c, source.displayName)));
      url = entries.length < source.maxEntries ? nextPageUrl(url, doc) : null;
      if (url && new URL(url).hostname === NVD_HOST) await sleep(source.apiKey ? PAGE_GAP_MS.withKey : PAGE_GAP_MS.withoutKey);
    }
    entries.sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? '') || a.externalId.localeCompare(b.externalId));
    return { status: 'ok', entries: entries.slice(0, source.maxEntries), ...validators };
  },
};
