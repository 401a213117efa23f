import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';

/**
 * Issue 19 item 4: NUL characters, lone surrogates and deep nesting, sent to every operation
 * of the OpenAPI document (bodies, query strings, path parameters), never give a 5xx.
 */
let t: TestContext;
let admin: Record<string, string>;
let operations: Array<{ method: string; path: string; hasBody: boolean; params: string[] }>;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  const doc = (await t.app.inject({ url: '/api/docs/openapi.json' })).json() as { paths: Record<string, Record<string, { requestBody?: unknown; parameters?: { in: string; name: string }[] }>> };
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, hasBody: !!op.requestBody, params: (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name) })),
  );
});
afterAll(() => t.close());

const DEEP = `${'['.repeat(5000)}${']'.repeat(5000)}`;
const CASES: Array<[string, string]> = [
  ['NUL in a string', '{"name":"a\\u0000b","title":"a\\u0000b","url":"https://x.test/\\u0000","input":"\\u0000"}'],
  ['lone surrogate', '{"name":"\\ud800","title":"\\udfff x","input":{"k":"\\ud83d"}}'],
  ['NUL in a key', '{"a\\u0000":1}'],
  ['deep nesting', DEEP],
];

function fill(path: string, value: (name: string) => string): string {
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => value(name));
}

describe('hostile bytes on every operation', () => {
  it('covers the whole document', () => {
    expect(operations.length).toBeGreaterThan(60);
  });

  it('bodies: NUL, lone surrogates, NUL keys and 5,000-level nesting → 4xx, never 5xx', async () => {
    const failures: string[] = [];
    for (const op of operations.filter((o) => o.hasBody || ['POST', 'PUT', 'PATCH'].includes(o.method))) {
      const url = fill(op.path, (n) => (n === 'source' ? 'webhook' : '0193f0a4-7c1e-7a2b-9c3d-4e5f60718293'));
      for (const [name, body] of CASES) {
        const res = await t.app.inject({ method: op.method as 'POST', url, headers: { ...admin, 'content-type': 'application/json' }, payload: body });
        if (res.statusCode >= 500) failures.push(`${op.method} ${op.path} ${name}: ${res.statusCode} ${res.body.slice(0, 100)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('query strings and path parameters with NUL and lone surrogates → 4xx, never 5xx', async () => {
    const failures: string[] = [];
    for (const op of operations) {
      for (const bad of ['%00', '%ED%A0%80', 'a%00b']) {
        const url = `${fill(op.path, () => bad)}?search=${bad}&type=${bad}&status=${bad}&source=${bad}&q=${bad}`;
        const res = await t.app.inject({ method: op.method as 'GET', url, headers: admin, ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { payload: {} }) });
        if (res.statusCode >= 500) failures.push(`${op.method} ${url}: ${res.statusCode} ${res.body.slice(0, 100)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('names the problem in the 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: { ...admin, 'content-type': 'application/json' }, payload: '{"title":"x\\u0000y"}' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'title', message: 'contains a NUL character (\\u0000)', code: 'invalid_string', location: 'body' }] });
    const deep = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: { ...admin, 'content-type': 'application/json' }, payload: DEEP });
    expect(deep.json().issues[0]).toMatchObject({ code: 'too_deep' });
    const query = await t.app.inject({ url: '/iocs?search=a%00', headers: admin });
    expect(query.json().issues[0]).toMatchObject({ path: 'search', location: 'query', code: 'invalid_string' });
  });

  it('webhook intake keeps a delivery whose payload holds a NUL (made storable), and refuses absurd nesting', async () => {
    const agent = (await t.app.inject({ method: 'POST', url: '/api/agents', headers: admin, payload: { name: 'Hooks', systemPrompt: 'x' } })).json().id;
    const { secret, webhookUrl } = (await t.app.inject({ url: `/api/agents/${agent}/trigger/webhook/fields`, headers: admin })).json().data;
    const id = webhookUrl.split('/').pop();
    await t.app.inject({ method: 'POST', url: `/api/agents/${agent}/trigger/save`, headers: admin, payload: { triggerId: id, source: 'webhook' } });
    const res = await t.app.inject({ method: 'POST', url: `/api/trigger/webhook/${id}`, headers: { 'content-type': 'application/json', 'x-rampart-secret': secret }, payload: '{"title":"bad\\u0000byte","k\\ud800":"v"}' });
    expect(res.statusCode, res.body).toBe(200);
    const run = await t.database.db.selectFrom('agentRuns').select('input').where('id', '=', res.json().executionId).executeTakeFirstOrThrow();
    expect(run.input).toEqual({ title: 'bad\uFFFDbyte', 'k\uFFFD': 'v' });
    const deep = await t.app.inject({ method: 'POST', url: `/api/trigger/webhook/${id}`, headers: { 'content-type': 'application/json', 'x-rampart-secret': secret }, payload: DEEP });
    expect(deep.statusCode).toBe(400);
  });
});
