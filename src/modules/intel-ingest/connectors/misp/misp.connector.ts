import { ConnectorError, type Connector, type HttpClient } from '../connector.js';
import type { IntelEntry } from '../../../intel/index.js';
import { entryFromMispEvent, mispCursorFrom, nextMispCursor, parseRestSearchResponse, unreadRestEvents } from './misp.fns.js';
import type { MispEvent } from './misp.schemas.js';

const PAGE_SIZE = 100;
// A runaway server (or a page size it ignores) must not loop forever.
const MAX_PAGES = 200;

/**
 * MISP REST API: published events changed since the last sync (`timestamp` filter, a MISP
 * server-side "newer than or equal"), page by page, with the automation key in Authorization.
 */
export const mispConnector: Connector = {
  async fetch(source, state, http) {
    if (!source.serverUrl || !source.apiKey) throw new ConnectorError('A MISP source needs serverUrl and apiKey');
    const base = source.serverUrl.replace(/\/+$/, '');
    const since = mispCursorFrom(state.cursor);
    const events: MispEvent[] = [];
    // The cursor's own second comes back (the filter is "at or after"): fetch past what was read.
    for (let page = 1; page <= MAX_PAGES && events.length < source.maxEntries + (since?.seen.length ?? 0); page++) {
      const batch = await searchPage(http, base, source.apiKey, page, since?.timestamp ?? null);
      events.push(...batch);
      if (batch.length < PAGE_SIZE) break;
    }
    // Oldest first, so that a maxEntries cut leaves the newer events for the next sync.
    const taken = unreadRestEvents(events, since).slice(0, source.maxEntries);
    const entries: IntelEntry[] = taken.map((e) => entryFromMispEvent(e.event, { serverUrl: base, publisher: source.displayName }));
    const cursor = nextMispCursor(taken.filter((e): e is typeof e & { timestamp: number } => e.timestamp !== null && e.timestamp > 0), since);
    return { status: 'ok', entries, cursor: cursor ? { ...cursor } : undefined };
  },
};

async function searchPage(http: HttpClient, base: string, apiKey: string, page: number, since: number | null): Promise<MispEvent[]> {
  const body: Record<string, unknown> = { returnFormat: 'json', published: true, page, limit: PAGE_SIZE, includeEventTags: true };
  if (since !== null) body.timestamp = String(since);
  const res = await http.request(`${base}/events/restSearch`, {
    method: 'POST',
    headers: { authorization: apiKey, accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status === 401 || res.status === 403) throw new ConnectorError(`MISP refused the API key (HTTP ${res.status}); check the key and its role's permissions`);
  if (res.status === 404) throw new ConnectorError(`MISP answered 404 for ${base}/events/restSearch; is serverUrl the MISP base URL?`);
  if (res.status >= 400) throw new ConnectorError(`MISP answered HTTP ${res.status}${errorDetail(res)}`);
  let json: unknown;
  try {
    json = res.json();
  } catch {
    throw new ConnectorError('MISP answered with something that is not JSON; is serverUrl the MISP base URL?');
  }
  return parseRestSearchResponse(json);
}

function errorDetail(res: { text(): string }): string {
  try {
    const j = JSON.parse(res.text()) as { message?: unknown };
    return typeof j.message === 'string' ? `: ${j.message.slice(0, 200)}` : '';
  } catch {
    return '';
  }
}
