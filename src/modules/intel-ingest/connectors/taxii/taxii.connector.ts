import { ConnectorError, type Connector, type HttpClient, type SourceConfig } from '../connector.js';
import type { IntelEntry } from '../../../intel/index.js';
import { entriesFromStixObjects, validateTaxiiEnvelope } from './taxii.fns.js';

const TAXII = 'application/taxii+json;version=2.1';
// Bounds against a server whose `next` never ends (a known failure of some TAXII servers).
const MAX_PAGES_PER_COLLECTION = 1_000;

interface Collection {
  id: string;
  title?: string;
  can_read?: boolean;
}

/**
 * TAXII 2.1: discovery → API root → collections (can_read) → objects, following `more`/`next`
 * to the end without sleeping, incremental per collection by `added_after` (the server's
 * X-TAXII-Date-Added-Last of the last page). `serverUrl` may be the discovery URL, an API root
 * or one collection's URL.
 */
export const taxiiConnector: Connector = {
  async fetch(source, state, http) {
    if (!source.serverUrl) throw new ConnectorError('A TAXII source needs serverUrl (discovery, API root or collection URL)');
    const client = taxiiClient(http, source);
    const { apiRoot, collections } = await resolveCollections(client, source);
    const cursor: Record<string, unknown> = { ...state.cursor };
    const entries: IntelEntry[] = [];
    for (const collection of collections) {
      if (entries.length >= source.maxEntries) break;
      const since = typeof cursor[collection.id] === 'string' ? (cursor[collection.id] as string) : null;
      const { objects, lastAdded } = await readCollection(client, apiRoot, collection.id, since, source.maxEntries - entries.length);
      entries.push(...entriesFromStixObjects(objects, { collectionTitle: collection.title ?? collection.id, publisher: source.displayName }));
      if (lastAdded) cursor[collection.id] = lastAdded;
    }
    return { status: 'ok', entries: entries.slice(0, source.maxEntries), cursor };
  },
};

type TaxiiGet = (url: string) => Promise<{ json: unknown; headers: Record<string, string> }>;

function taxiiClient(http: HttpClient, source: SourceConfig): TaxiiGet {
  const headers: Record<string, string> = { accept: TAXII };
  if (source.apiKey) {
    headers.authorization =
      source.authType === 'basic'
        ? `Basic ${Buffer.from(`${source.username ?? ''}:${source.apiKey}`).toString('base64')}`
        : `Bearer ${source.apiKey}`;
  }
  return async (url) => {
    const res = await http.request(url, { headers });
    if (res.status >= 400) throw new ConnectorError(taxiiError(res.status, url, res.text()));
    try {
      return { json: JSON.parse(res.text()) as unknown, headers: res.headers };
    } catch {
      throw new ConnectorError(`The TAXII server answered ${url} with something that is not JSON`);
    }
  };
}

function taxiiError(status: number, url: string, body: string): string {
  let detail = '';
  try {
    const j = JSON.parse(body) as { title?: unknown; description?: unknown };
    detail = [j.title, j.description].filter((x) => typeof x === 'string').join(': ').slice(0, 200);
  } catch {
    /* not a TAXII error body */
  }
  const what: Record<number, string> = {
    401: 'the TAXII server needs valid credentials (HTTP 401); check apiKey/username',
    403: 'the TAXII server refused access (HTTP 403); the credentials lack permission for this API root or collection',
    404: `the TAXII server has nothing at ${url} (HTTP 404); check serverUrl and collectionId`,
    406: 'the TAXII server does not accept TAXII 2.1 requests (HTTP 406); is this a TAXII 2.0 or 1.x server?',
    413: 'the TAXII server refused the request size (HTTP 413)',
    416: 'the TAXII server rejected the requested range (HTTP 416)',
    429: 'the TAXII server is rate limiting us (HTTP 429); the sync will be retried',
  };
  const base = what[status] ?? `the TAXII server answered HTTP ${status} for ${url}`;
  return `${base.charAt(0).toUpperCase()}${base.slice(1)}${detail ? ` (${detail})` : ''}`;
}

async function resolveCollections(get: TaxiiGet, source: SourceConfig): Promise<{ apiRoot: string; collections: Collection[] }> {
  const url = withSlash(source.serverUrl!);
  const direct = /^(.*\/)collections\/([^/]+)\/$/.exec(url);
  if (direct) return { apiRoot: direct[1]!, collections: [{ id: decodeURIComponent(direct[2]!) }] };

  const { json } = await get(url);
  const doc = (json ?? {}) as { api_roots?: unknown; default?: unknown; versions?: unknown; title?: unknown };
  let apiRoot = url;
  if (Array.isArray(doc.api_roots) || typeof doc.default === 'string') {
    const chosen = typeof doc.default === 'string' ? doc.default : (doc.api_roots as unknown[]).find((r) => typeof r === 'string');
    if (typeof chosen !== 'string') throw new ConnectorError('The TAXII discovery document lists no API root');
    apiRoot = withSlash(new URL(chosen, url).toString());
  } else if (!Array.isArray(doc.versions) && typeof doc.title !== 'string') {
    throw new ConnectorError(`${url} is neither a TAXII 2.1 discovery document nor an API root`);
  }
  const { json: listJson } = await get(`${apiRoot}collections/`);
  const all = ((listJson as { collections?: unknown })?.collections ?? []) as Collection[];
  if (!Array.isArray(all)) throw new ConnectorError('The TAXII collections list is malformed');
  if (source.collectionId) {
    const found = all.find((c) => c.id === source.collectionId);
    if (!found) throw new ConnectorError(`The TAXII API root has no collection ${source.collectionId}`);
    if (found.can_read === false) throw new ConnectorError(`The TAXII collection ${source.collectionId} is not readable with these credentials`);
    return { apiRoot, collections: [found] };
  }
  const readable = all.filter((c) => c && typeof c.id === 'string' && c.can_read !== false);
  if (readable.length === 0) throw new ConnectorError('The TAXII API root has no readable collection');
  return { apiRoot, collections: readable };
}

async function readCollection(get: TaxiiGet, apiRoot: string, id: string, since: string | null, limit: number): Promise<{ objects: unknown[]; lastAdded: string | null }> {
  const objects: unknown[] = [];
  let next: string | null = null;
  let lastAdded: string | null = null;
  for (let page = 0; page < MAX_PAGES_PER_COLLECTION; page++) {
    const params = new URLSearchParams();
    if (since) params.set('added_after', since);
    if (next) params.set('next', next);
    const qs = params.toString();
    const { json, headers } = await get(`${apiRoot}collections/${encodeURIComponent(id)}/objects/${qs ? `?${qs}` : ''}`);
    const envelope = validateTaxiiEnvelope(json);
    objects.push(...envelope.objects);
    // A page cut short by maxEntries does not advance the cursor: the rest comes next sync.
    if (objects.length > limit) break;
    lastAdded = headers['x-taxii-date-added-last'] ?? lastAdded;
    if (!envelope.more || objects.length === limit) break;
    if (!envelope.next) throw new ConnectorError(`The TAXII server said more objects follow in collection ${id} but gave no "next"`);
    if (envelope.next === next) throw new ConnectorError(`The TAXII server returned the same "next" twice in collection ${id}; stopping instead of looping`);
    next = envelope.next;
  }
  return { objects: objects.slice(0, limit), lastAdded };
}

function withSlash(u: string): string {
  return u.endsWith('/') ? u : `${u}/`;
}
