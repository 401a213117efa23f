import { sendJson, startServer } from './http-server.js';

/**
 * A MISP REST API: POST /events/restSearch with the automation key in Authorization,
 * `published`, `timestamp` (>=) and `page`/`limit` paging, answering the {"response": […]}
 * envelope; and a MISP error body for a bad key.
 */
export async function startFakeMisp(opts: { apiKey: string; events: Array<Record<string, unknown>> }) {
  return startServer((req, res) => {
    if (req.headers.authorization !== opts.apiKey) {
      return sendJson(res, 403, { name: 'Authentication failed. Please make sure you pass the API key of an API enabled user along in the Authorization header.', message: 'Authentication failed.', url: '/events/restSearch' });
    }
    if (req.method !== 'POST' || req.url !== '/events/restSearch') return sendJson(res, 404, { name: 'Not Found', message: 'Not Found', url: req.url });
    const q = JSON.parse(req.body || '{}') as { page?: number; limit?: number; timestamp?: string; published?: boolean };
    let events = opts.events.filter((e) => !q.published || e.published === true);
    if (q.timestamp) events = events.filter((e) => Number(e.timestamp) >= Number(q.timestamp));
    const limit = q.limit ?? 1000;
    const page = q.page ?? 1;
    const slice = events.slice((page - 1) * limit, page * limit);
    return sendJson(res, 200, { response: slice.map((e) => ({ Event: e })) });
  });
}
