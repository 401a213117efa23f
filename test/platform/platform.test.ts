import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { loadConfig } from '../../src/config.js';

let t: TestContext;
let admin: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp({
    env: { RAMPART_BODY_LIMIT_BYTES: '2048' },
    extend: (app) => {
      app.get('/api/test/boom', async () => {
        throw new Error('connection string postgres://user:hunter2@db internal detail');
      });
      app.post('/api/test/echo', async (req) => ({ received: req.body }));
    },
  });
  admin = bearer(t.orgA.apiKey.key);
});
afterAll(() => t.close());

describe('errors (spec §7)', () => {
  it('answers unknown routes with 404 {error}', async () => {
    const res = await t.app.inject({ url: '/api/no-such-thing', headers: admin });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Route GET /api/no-such-thing not found' });
  });

  it('answers unknown routes with 404 even without a key', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/nowhere' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Route DELETE /nowhere not found' });
  });

  it('answers malformed JSON with 400 Validation failed and one issue', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/output-destinations',
      headers: { ...admin, 'content-type': 'application/json' },
      payload: '{"type": "webhook",',
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error).toBe('Validation failed');
    expect(body.issues).toHaveLength(1);
    expect(body.issues[0]).toMatchObject({ code: 'invalid_json', location: 'body' });
  });

  it('answers an oversized body with 413', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/output-destinations',
      headers: { ...admin, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(5000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'Request body is larger than 2048 bytes' });
  });

  it('answers a wrong content type with 415', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/output-destinations',
      headers: { ...admin, 'content-type': 'text/xml' },
      payload: '<x/>',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ error: expect.stringContaining('Unsupported content type') });
  });

  it('answers a missing body with 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: admin });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Validation failed');
  });

  it('never leaks internals in a 500, and carries a request id', async () => {
    const res = await t.app.inject({ url: '/api/test/boom', headers: admin });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'Internal server error' });
    expect(res.body).not.toContain('hunter2');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps a sane caller-supplied x-request-id and replaces an unsafe one', async () => {
    const kept = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'trace-abc.123' } });
    expect(kept.headers['x-request-id']).toBe('trace-abc.123');
    const replaced = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers['x-request-id']).not.toBe('bad id with spaces');
  });

  it('checks the key before the body: 401 beats 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: { 'content-type': 'application/json' }, payload: '{bad' });
    expect(res.statusCode).toBe(401);
  });
});

describe('rate limiting', () => {
  it('answers 429 with Retry-After once a key exceeds its limit, per key', async () => {
    const limited = await createTestApp({ env: { RAMPART_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const a = bearer(limited.orgA.apiKey.key);
      for (let i = 0; i < 3; i++) expect((await limited.app.inject({ url: '/api/output-destinations', headers: a })).statusCode).toBe(200);
      const res = await limited.app.inject({ url: '/api/output-destinations', headers: a });
      expect(res.statusCode).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(res.json()).toEqual({ error: expect.stringMatching(/^Rate limit exceeded/) });
      // Another key has its own budget.
      expect((await limited.app.inject({ url: '/api/output-destinations', headers: bearer(limited.orgB.apiKey.key) })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('operations', () => {
  it('serves /healthz and /readyz without a key', async () => {
    expect((await t.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', database: 'ok', invalidation: 'off', migrations: 'ok' });
  });

  it('exposes Prometheus metrics with request counts by route and job counts', async () => {
    await t.app.inject({ url: '/api/output-destinations', headers: admin });
    const res = await t.app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toMatch(/rampart_http_requests_total\{method="GET",route="\/api\/output-destinations",status="200"\} \d+/);
    expect(res.body).toContain('rampart_http_request_duration_seconds_bucket');
    expect(res.body).toContain('# TYPE rampart_jobs gauge');
  });

  it('asks for the metrics token when the operator sets one', async () => {
    const token = 'metrics-token-0123456789';
    const guarded = await createTestApp({ env: { RAMPART_METRICS_TOKEN: token } });
    try {
      for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: token }]) {
        const res = await guarded.app.inject({ url: '/metrics', headers });
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: 'Metrics require the metrics token: Authorization: Bearer <RAMPART_METRICS_TOKEN>' });
      }
      const ok = await guarded.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } });
      expect(ok.statusCode).toBe(200);
      expect(ok.body).toContain('rampart_http_requests_total');
      // The probes stay open.
      expect((await guarded.app.inject({ url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it('refuses a metrics token shorter than 16 characters at start', () => {
    expect(() => loadConfig({ RAMPART_METRICS_TOKEN: 'short' })).toThrow(/RAMPART_METRICS_TOKEN: must be at least 16 characters/);
  });
});

describe('OpenAPI', () => {
  it('is a valid OpenAPI 3.1 document, version 1.0.0, with the bearer scheme and spec tags', async () => {
    const res = await t.app.inject({ url: '/api/docs/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.components.securitySchemes.bearerAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    const tagNames = doc.tags.map((x: { name: string }) => x.name);
    for (const tag of ['Agents', 'Agent Runs', 'Alerts', 'Output Destinations', 'Hunt', 'Intel', 'Audit Logs', 'Users', 'Roles', 'Organizations']) {
      expect(tagNames).toContain(tag);
    }
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
  });

  it('lists every visible route with its error bodies', async () => {
    const doc = (await t.app.inject({ url: '/api/docs/openapi.json' })).json();
    const visible = t.app.registeredRoutes.filter((r) => !r.hidden && !r.url.startsWith('/api/docs') && !r.url.startsWith('/api/test/'));
    expect(visible.length).toBeGreaterThan(15);
    for (const route of visible) {
      const path = route.url.replace(/:([A-Za-z]+)/g, '{$1}');
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.url} is in the document`).toBeTruthy();
      expect(op.responses['500'], `${route.method} ${route.url} documents 500`).toBeTruthy();
      // Probes, and the OIDC sign-in's browser steps (no credential to refuse; they answer a page or a redirect), have no API error bodies to document.
      // SCIM answers in its own error format (RFC 7644 §3.12), statuses as SCIM clients expect (test/access/scim.test.ts).
      if (!route.url.match(/^\/(healthz|readyz|metrics)$/) && !route.url.startsWith('/auth/oidc/') && !route.url.startsWith('/scim/v2/')) {
        for (const status of ['400', '401', '403', '429']) expect(op.responses[status], `${route.method} ${route.url} documents ${status}`).toBeTruthy();
      }
    }
  });

  it('serves the interactive reference and its assets locally', async () => {
    const page = await t.app.inject({ url: '/api/docs/' });
    expect([200, 302]).toContain(page.statusCode);
    const html = page.statusCode === 302 ? (await t.app.inject({ url: page.headers.location as string })).body : page.body;
    expect(html).toContain('swagger-ui');
    expect(html).not.toMatch(/https?:\/\/(cdn|unpkg|fonts)\./);
    const asset = await t.app.inject({ url: '/api/docs/static/swagger-ui-bundle.js' });
    expect(asset.statusCode).toBe(200);
  });
});
