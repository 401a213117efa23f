import { sendJson, startServer } from './http-server.js';

const TAXII = 'application/taxii+json;version=2.1';

export interface FakeTaxiiOptions {
  /** Objects per collection id, each with a `date_added` used for added_after filtering. */
  collections: Record<string, { title: string; canRead?: boolean; objects: Array<Record<string, unknown> & { date_added: string }> }>;
  pageSize?: number;
  /** Require `Authorization: Bearer <token>` (or Basic) when set. */
  token?: string;
  basic?: { username: string; password: string };
  /** Force a status for every objects request (e.g. 429, 406, 413). */
  objectsStatus?: number;
}

/**
 * A TAXII 2.1 server as the reference implementation (medallion) behaves: discovery at
 * /taxii2/, one API root at /api1/, collections, and objects with `more`/`next` paging,
 * `added_after` filtering and X-TAXII-Date-Added-First/Last headers.
 */
export async function startFakeTaxii(opts: FakeTaxiiOptions) {
  const pageSize = opts.pageSize ?? 2;
  return startServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    const okAuth =
      (!opts.token && !opts.basic) ||
      (opts.token && auth === `Bearer ${opts.token}`) ||
      (opts.basic && auth === `Basic ${Buffer.from(`${opts.basic.username}:${opts.basic.password}`).toString('base64')}`);
    if (!okAuth) return sendJson(res, 401, { title: 'Unauthorized', description: 'bad credentials' }, { 'content-type': TAXII });
    if (!String(req.headers.accept ?? '').includes('application/taxii+json')) return sendJson(res, 406, { title: 'Not Acceptable' }, { 'content-type': TAXII });
    const url = new URL(req.url, 'http://x');
    const path = url.pathname;
    if (path === '/taxii2/') return sendJson(res, 200, { title: 'Fake TAXII', default: '/api1/', api_roots: ['/api1/'] }, { 'content-type': TAXII });
    if (path === '/api1/') return sendJson(res, 200, { title: 'API root', versions: [TAXII], max_content_length: 10_000_000 }, { 'content-type': TAXII });
    if (path === '/api1/collections/') {
      return sendJson(res, 200, {
        collections: Object.entries(opts.collections).map(([id, c]) => ({ id, title: c.title, can_read: c.canRead ?? true, can_write: false, media_types: [TAXII] })),
      }, { 'content-type': TAXII });
    }
    const m = /^\/api1\/collections\/([^/]+)\/objects\/$/.exec(path);
    if (m) {
      if (opts.objectsStatus) return sendJson(res, opts.objectsStatus, { title: `status ${opts.objectsStatus}` }, { 'content-type': TAXII });
      const collection = opts.collections[decodeURIComponent(m[1]!)];
      if (!collection) return sendJson(res, 404, { title: 'Not found' }, { 'content-type': TAXII });
      const addedAfter = url.searchParams.get('added_after');
      // Inclusive on purpose: some servers treat added_after as >=, so clients must dedupe.
      const all = collection.objects.filter((o) => !addedAfter || o.date_added >= addedAfter);
      const start = Number(url.searchParams.get('next') ?? 0);
      const page = all.slice(start, start + pageSize);
      const more = start + pageSize < all.length;
      if (page.length === 0) return sendJson(res, 200, {}, { 'content-type': TAXII });
      const headers: Record<string, string> = {
        'content-type': TAXII,
        'x-taxii-date-added-first': page[0]!.date_added,
        'x-taxii-date-added-last': page[page.length - 1]!.date_added,
      };
      return sendJson(res, 200, { more, ...(more ? { next: String(start + pageSize) } : {}), objects: page.map(({ date_added: _d, ...o }) => o) }, headers);
    }
    return sendJson(res, 404, { title: 'Not found' }, { 'content-type': TAXII });
  });
}
