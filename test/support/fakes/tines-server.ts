import { sendJson, startServer, type RecordedRequest } from './http-server.js';

/**
 * A Tines tenant's cases API: `POST /api/v2/cases` with `Authorization: Bearer <API key>`,
 * JSON `{team_id, name, description?, priority?, status?, …}`. Answers the created case;
 * 401 for a bad key, 422 for a bad team, 429 (with Retry-After) when throttled.
 */
export interface FakeTines {
  url: string;
  requests: RecordedRequest[];
  cases: Array<Record<string, any>>;
  throttleNext(n: number, retryAfterSeconds: number): void;
  close(): Promise<void>;
}

export async function startFakeTines(opts: { apiKey: string; teamIds: number[] }): Promise<FakeTines> {
  const cases: FakeTines['cases'] = [];
  let throttled: number[] = [];
  const server = await startServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/api/v2/cases') return sendJson(res, 404, { error: 'Not found' });
    if (req.headers.authorization !== `Bearer ${opts.apiKey}`) return sendJson(res, 401, { error: 'Invalid API key' });
    const s = throttled.shift();
    if (s !== undefined) return sendJson(res, 429, { error: 'Too many requests' }, { 'retry-after': String(s) });
    const body = JSON.parse(req.body) as Record<string, any>;
    if (typeof body.team_id !== 'number' || !opts.teamIds.includes(body.team_id)) return sendJson(res, 422, { errors: ['team_id is invalid'] });
    if (typeof body.name !== 'string' || !body.name) return sendJson(res, 422, { errors: ['name is required'] });
    if (body.priority !== undefined && !['critical', 'high', 'medium', 'low', 'info'].includes(body.priority)) return sendJson(res, 422, { errors: ['priority is invalid'] });
    const created = { case_id: cases.length + 1, ...body };
    cases.push(created);
    sendJson(res, 201, { case_id: created.case_id, name: body.name, team: { id: body.team_id }, status: body.status ?? 'open' });
  });
  return {
    url: server.url,
    requests: server.requests,
    cases,
    throttleNext(n, s) {
      throttled = [...throttled, ...Array<number>(n).fill(s)];
    },
    close: server.close,
  };
}
