import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { deprecationDescription, type DeprecationInfo } from '../../src/platform/http/deprecation.js';
import { withErrors } from '../../src/platform/http/responses.js';

let t: TestContext;
const current: DeprecationInfo = {
  replacement: 'GET /api/test/new',
  deprecatedAt: new Date('2026-01-01T00:00:00Z'),
  sunset: new Date('2099-12-31T00:00:00Z'),
};
const retired: DeprecationInfo = {
  replacement: 'GET /api/test/new',
  deprecatedAt: new Date('2025-01-01T00:00:00Z'),
  sunset: new Date('2026-01-01T00:00:00Z'),
};

beforeAll(async () => {
  t = await createTestApp({
    extend: (root) => {
      const app = root.withTypeProvider<ZodTypeProvider>();
      const response = withErrors({ 200: z.object({ ok: z.boolean() }) }, 410);
      app.get('/api/test/new', { schema: { response } }, async () => ({ ok: true }));
      app.get('/api/test/old', { config: { deprecated: current }, schema: { deprecated: true, description: deprecationDescription(current), response } }, async () => ({ ok: true }));
      app.get('/api/test/gone', { config: { deprecated: retired }, schema: { deprecated: true, description: deprecationDescription(retired), response } }, async () => ({ ok: true }));
    },
  });
});
afterAll(() => t.close());

describe('deprecation (spec §9)', () => {
  it('keeps a deprecated route working and announces its successor and sunset', async () => {
    const res = await t.app.inject({ url: '/api/test/old', headers: bearer(t.orgA.apiKey.key) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    expect(res.headers.deprecation).toBe(`@${Math.floor(current.deprecatedAt.getTime() / 1000)}`);
    expect(res.headers.sunset).toBe('Thu, 31 Dec 2099 00:00:00 GMT');
    expect(res.headers.link).toBe('</api/test/new>; rel="successor-version"');
  });

  it('sends no deprecation headers on a current route', async () => {
    const res = await t.app.inject({ url: '/api/test/new', headers: bearer(t.orgA.apiKey.key) });
    expect(res.headers.deprecation).toBeUndefined();
  });

  it('answers 410 naming the replacement after the sunset date', async () => {
    const res = await t.app.inject({ url: '/api/test/gone', headers: bearer(t.orgA.apiKey.key) });
    expect(res.statusCode).toBe(410);
    expect(res.json()).toEqual({ error: 'This endpoint was retired on 2026-01-01T00:00:00.000Z; use GET /api/test/new instead' });
  });

  it('marks the operation deprecated in the OpenAPI document, naming the replacement', async () => {
    const doc = (await t.app.inject({ url: '/api/docs/openapi.json' })).json();
    const op = doc.paths['/api/test/old'].get;
    expect(op.deprecated).toBe(true);
    expect(op.description).toContain('GET /api/test/new');
    expect(op.responses['410']).toBeTruthy();
  });
});
