import { ConnectorError, type Connector, type HttpClient, type SourceConfig } from '../connector.js';
import type { IntelEntry } from '../../../intel/index.js';
import { changedFeedEvents, entryFromMispEvent, mispCursorFrom, nextMispCursor, parseFeedEvent, parseFeedManifest } from './misp.fns.js';

const CONCURRENCY = 4;

/**
 * A static MISP feed directory: `manifest.json` says which events exist and when each last
 * changed; only events newer than the last sync are downloaded (`<uuid>.json`).
 */
export const mispFeedConnector: Connector = {
  async fetch(source, state, http) {
    if (!source.serverUrl) throw new ConnectorError('A MISP feed source needs serverUrl (the directory holding manifest.json)');
    const base = source.serverUrl.endsWith('/') ? source.serverUrl : `${source.serverUrl}/`;
    const headers: Record<string, string> = { accept: 'application/json', ...feedAuth(source) };
    if (state.etag) headers['if-none-match'] = state.etag;
    if (state.lastModified) headers['if-modified-since'] = state.lastModified;
    const res = await http.request(new URL('manifest.json', base).toString(), { headers });
    if (res.status === 304) return { status: 'not_modified', entries: [], etag: state.etag, lastModified: state.lastModified };
    if (res.status >= 400) throw new ConnectorError(`The MISP feed answered HTTP ${res.status} for ${res.url}`);
    const manifest = parseFeedManifest(parseJson(res, 'manifest.json'));
    const since = mispCursorFrom(state.cursor);
    const changed = changedFeedEvents(manifest, since).slice(0, source.maxEntries);
    const byUuid = new Map(manifest.map((m) => [m.uuid, m]));

    const entries: IntelEntry[] = new Array(changed.length);
    let next = 0;
    async function worker() {
      while (next < changed.length) {
        const i = next++;
        entries[i] = await fetchEvent(http, base, changed[i]!, source.displayName, feedAuth(source));
      }
    }
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, changed.length) }, worker));

    const cursor = nextMispCursor(changed.map((uuid) => byUuid.get(uuid)!), since);
    return {
      status: 'ok',
      entries,
      etag: res.headers.etag ?? null,
      lastModified: res.headers['last-modified'] ?? null,
      cursor: cursor ? { ...cursor } : undefined,
    };
  },
};

/**
 * Most feeds are public; a protected one (a Rampart feed, a MISP behind a proxy) takes the
 * source's apiKey as `Bearer`, or as the password of `Basic` with username (as TAXII sources).
 */
function feedAuth(source: SourceConfig): Record<string, string> {
  if (!source.apiKey) return {};
  if (source.authType === 'basic') return { authorization: `Basic ${Buffer.from(`${source.username ?? ''}:${source.apiKey}`).toString('base64')}` };
  return { authorization: `Bearer ${source.apiKey}` };
}

async function fetchEvent(http: HttpClient, base: string, uuid: string, publisher: string, auth: Record<string, string>): Promise<IntelEntry> {
  if (!/^[0-9a-f-]{36}$/i.test(uuid)) throw new ConnectorError(`manifest.json lists an invalid event id ${JSON.stringify(uuid.slice(0, 64))}`);
  const res = await http.request(new URL(`${uuid}.json`, base).toString(), { headers: { accept: 'application/json', ...auth } });
  if (res.status >= 400) throw new ConnectorError(`The MISP feed answered HTTP ${res.status} for event ${uuid}`);
  return entryFromMispEvent(parseFeedEvent(parseJson(res, `${uuid}.json`)), { serverUrl: null, publisher });
}

function parseJson(res: { text(): string }, what: string): unknown {
  try {
    return JSON.parse(res.text());
  } catch {
    throw new ConnectorError(`${what} of the MISP feed is not valid JSON`);
  }
}
