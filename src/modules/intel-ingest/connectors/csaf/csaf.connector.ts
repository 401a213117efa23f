import { originOf } from '../../../../platform/outbound/secret-origin.js';
import { ConnectorError, type Connector, type HttpClient, ConnectorParseError } from '../connector.js';
import type { IntelEntry } from '../../../intel/index.js';
import { csafShapeError, entriesFromCsaf } from './csaf.fns.js';
import { changesFromCsv, changesFromRolie, distributionsOf, type CsafChange } from './csaf-provider.fns.js';

/**
 * A CSAF 2.0 source. `serverUrl` is a provider's `provider-metadata.json` (its distributions are
 * read: ROLIE feeds, or directories with `changes.csv`), one ROLIE feed, or one CSAF document.
 * Incremental: the cursor keeps the newest `updated` time read, and a sync fetches only the
 * advisories changed after it, oldest first, at most maxEntries documents (the next sync goes on
 * from there). A document that is not CSAF 2.0 is skipped and named in the cursor's `invalid`
 * (the rest of the feed still syncs). Every request goes through the guarded client.
 * The source's key goes only to `serverUrl`'s origin: feeds, directories and documents a
 * provider lists on other hosts are fetched without it, and the result's notes say so (the
 * sync logs them), so a provider-metadata.json cannot hand the key to a host of its choosing.
 */
const LIMITS = { metadata: 1024 * 1024, feed: 64 * 1024 * 1024, document: 16 * 1024 * 1024 };
const MAX_INVALID_KEPT = 20;

export const csafConnector: Connector = {
  async fetch(source, state, http) {
    if (!source.serverUrl) throw new ConnectorError('A CSAF source needs serverUrl (a provider-metadata.json, a ROLIE feed or a CSAF document)');
    const headers = credentialsFor(source.serverUrl, source.apiKey);
    const conditional: Record<string, string> = {};
    if (state.etag) conditional['if-none-match'] = state.etag;
    if (state.lastModified) conditional['if-modified-since'] = state.lastModified;
    const first = await http.request(source.serverUrl, { headers: { ...headers(source.serverUrl), ...conditional }, maxResponseBytes: LIMITS.feed, timeoutMs: 120_000 });
    if (first.status === 304) return { status: 'not_modified', entries: [], etag: state.etag, lastModified: state.lastModified, cursor: state.cursor };
    if (first.status >= 400) throw new ConnectorError(`The CSAF source answered HTTP ${first.status} for ${first.url}`);
    const doc = parseJson(first.body, first.url);
    const validators = { etag: first.headers.etag ?? null, lastModified: first.headers['last-modified'] ?? null };

    // One CSAF document: the whole source.
    if (isObj(doc) && isObj(doc.document)) {
      const reason = csafShapeError(doc);
      if (reason) throw new ConnectorParseError(`The CSAF document at ${first.url} is not valid CSAF 2.0: ${reason}`);
      return { status: 'ok', entries: entriesFromCsaf(doc, source.displayName, first.url), ...validators, cursor: state.cursor };
    }

    let changes: CsafChange[];
    if (isObj(doc) && isObj(doc.feed)) changes = changesFromRolie(doc, first.url);
    else if (isObj(doc) && Array.isArray(doc.distributions)) changes = await providerChanges(doc, first.url, headers, http);
    else throw new ConnectorParseError(`${first.url} is neither a CSAF provider-metadata.json, a ROLIE feed nor a CSAF document`);

    const since = typeof state.cursor.since === 'string' ? state.cursor.since : '';
    const due = changes.filter((c) => c.updated > since).sort((a, b) => a.updated.localeCompare(b.updated) || a.url.localeCompare(b.url));
    const taken = due.slice(0, source.maxEntries);
    const invalid: Array<{ url: string; reason: string }> = Array.isArray(state.cursor.invalid) ? (state.cursor.invalid as Array<{ url: string; reason: string }>) : [];
    const entries: IntelEntry[] = [];
    for (const change of taken) {
      const res = await http.request(change.url, { headers: headers(change.url), maxResponseBytes: LIMITS.document, timeoutMs: 60_000 });
      if (res.status >= 400) throw new ConnectorError(`The CSAF source answered HTTP ${res.status} for ${res.url}`);
      let advisory: unknown;
      try {
        advisory = JSON.parse(res.body.toString('utf8'));
      } catch {
        invalid.push({ url: res.url, reason: 'not JSON' });
        continue;
      }
      const reason = csafShapeError(advisory);
      if (reason) invalid.push({ url: res.url, reason });
      else entries.push(...entriesFromCsaf(advisory, source.displayName, res.url));
    }
    const next = taken.at(-1)?.updated ?? since;
    return { status: 'ok', entries, ...validators, cursor: { since: next, pending: due.length - taken.length, invalid: invalid.slice(-MAX_INVALID_KEPT) }, notes: headers.notes() };
  },
};

type Credentials = ((url: string) => Record<string, string>) & { notes(): string[] };

/**
 * The request headers for a URL: with the key only on `serverUrl`'s origin. Every other origin
 * asked is remembered (without path or query, which may carry a token) for the sync's log.
 */
function credentialsFor(serverUrl: string, apiKey: string | null): Credentials {
  const home = originOf(serverUrl);
  const elsewhere = new Set<string>();
  const headers = (url: string): Record<string, string> => {
    const base = { accept: 'application/json' };
    if (!apiKey) return base;
    const origin = originOf(url);
    if (origin === home) return { ...base, authorization: `Bearer ${apiKey}` };
    elsewhere.add(origin ?? url);
    return base;
  };
  return Object.assign(headers, {
    notes: () => (elsewhere.size ? [`Fetched without the source's apiKey (sent only to ${home}): ${[...elsewhere].sort().join(', ')}`] : []),
  });
}

/** Every advisory change a provider lists: each ROLIE feed and each directory's changes.csv. */
async function providerChanges(metadata: Record<string, unknown>, base: string, headers: Credentials, http: HttpClient): Promise<CsafChange[]> {
  const { feeds, directories } = distributionsOf(metadata, base);
  if (!feeds.length && !directories.length) throw new ConnectorParseError('The CSAF provider-metadata.json lists no ROLIE feed and no directory distribution');
  const out: CsafChange[] = [];
  for (const url of feeds) {
    const res = await http.request(url, { headers: headers(url), maxResponseBytes: LIMITS.feed, timeoutMs: 120_000 });
    if (res.status >= 400) throw new ConnectorError(`The CSAF source answered HTTP ${res.status} for ${res.url}`);
    out.push(...changesFromRolie(parseJson(res.body, res.url), res.url));
  }
  for (const dir of directories) {
    const csv = new URL('changes.csv', dir).toString();
    const res = await http.request(csv, { headers: { ...headers(csv), accept: 'text/csv' }, maxResponseBytes: LIMITS.feed, timeoutMs: 120_000 });
    if (res.status >= 400) throw new ConnectorError(`The CSAF source answered HTTP ${res.status} for ${res.url}`);
    out.push(...changesFromCsv(res.body.toString('utf8'), dir));
  }
  // The same advisory in two feeds (TLP:WHITE and an aggregate): read once, at its newest time.
  const byUrl = new Map<string, CsafChange>();
  for (const c of out) if (!byUrl.has(c.url) || byUrl.get(c.url)!.updated < c.updated) byUrl.set(c.url, c);
  return [...byUrl.values()];
}

function parseJson(body: Buffer, url: string): unknown {
  try {
    return JSON.parse(body.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    throw new ConnectorParseError(`The CSAF source's ${url} is not valid JSON`);
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
