import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app.js';
import { buildConsole, DIST } from '../../scripts/build-console.js';
import { BUDGET_BYTES, initialJavaScript } from '../../scripts/console-budget.js';
import { CONSOLE_CSP } from '../../src/platform/http/console.js';

/** The web console served by the API process: SPA fallback, hashed long-cached assets, compression, CSP. */
let t: TestContext;
let entry: string;

beforeAll(async () => {
  await buildConsole({ ifStale: true });
  t = await createTestApp();
  entry = initialJavaScript(DIST).files[0]!;
}, 120_000);
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('the console at /', () => {
  it('serves index.html with a strict Content-Security-Policy and no inline script', async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain('<div id="root"></div>');
    expect(res.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
  });

  it('answers index.html for every console path, so any screen URL can be shared', async () => {
    for (const url of ['/', '/alerts', '/alerts/01890000-0000-7000-8000-000000000000?tab=x', '/intel/items', '/intel/items/x', '/hunt/x', '/sign-in', '/settings/api-keys', '/agents/a/runs/b', '/insights?window=7d']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain('<div id="root"></div>');
    }
  });

  it('covers every route of the console\'s own router (web/src/app.tsx)', async () => {
    const source = fs.readFileSync(path.resolve(import.meta.dirname, '../../web/src/app.tsx'), 'utf8');
    const patterns = [...source.matchAll(/^\s+\['(\/[^']*)', \w+\],$/gm)].map((m) => m[1]!);
    expect(patterns.length).toBeGreaterThan(10);
    for (const pattern of patterns) {
      const url = pattern.replace(/:\w+/g, 'x1');
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain('<div id="root"></div>');
    }
  });

  it('keeps the API\'s JSON 404 on API paths, whatever the method', async () => {
    for (const url of ['/api/nope', '/items/a/b/c', '/sources/x/y/z', '/healthz/x', '/not-a-console-path']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ error: `Route GET ${url} not found` });
    }
    const post = await t.app.inject({ method: 'POST', url: '/alerts' });
    expect(post.statusCode).toBe(404);
    expect(post.json()).toEqual({ error: 'Route POST /alerts not found' });
  });

  it('serves hashed assets for a year, brotli or gzip as the client accepts', async () => {
    expect(entry).toMatch(/^\/assets\/index-[A-Za-z0-9_-]{8}\.js$/);
    const plain = fs.readFileSync(path.join(DIST, entry));
    const br = await get(entry, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(br.headers.vary).toBe('accept-encoding');
    expect(zlib.brotliDecompressSync(br.rawPayload).equals(plain)).toBe(true);
    const gz = await get(entry, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.rawPayload).equals(plain)).toBe(true);
    const identity = await get(entry);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.rawPayload.equals(plain)).toBe(true);
  });

  it('answers 404 for an unknown asset, and never reads a file outside the build', async () => {
    expect((await get('/assets/missing-00000000.js')).statusCode).toBe(404);
    for (const url of ['/../package.json', '/%2e%2e/package.json', '/assets/../../package.json', '/assets/%2e%2e/%2e%2e/package.json', '/.fingerprint', '/index.html.br', '/assets/index.html']) {
      const res = await get(url);
      expect(res.body, url).not.toContain('"name": "rampart"');
      if (res.statusCode === 200) expect(res.body).toContain('<div id="root"></div>');
    }
  });

  it('keeps the initial JavaScript within its budget (250 kB gzipped)', () => {
    const initial = initialJavaScript(DIST);
    expect(initial.files.length).toBeGreaterThan(0);
    expect(initial.gzipBytes).toBeLessThanOrEqual(BUDGET_BYTES);
  });
});
