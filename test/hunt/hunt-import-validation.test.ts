import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';

/**
 * Issue 25 items 1–2: an import never answers 500, applies the validation of POST /api/assets
 * to every row it writes, and is bounded (413 beyond the documented limits).
 */
let t: TestContext;
let key: Record<string, string>;

beforeAll(async () => {
  // Bodies big enough to reach the import's own limits (the default body limit is 1 MiB).
  t = await createTestApp({ env: { RAMPART_BODY_LIMIT_BYTES: String(40 * 1024 * 1024) } });
  key = bearer(t.orgA.apiKey.key);
});
afterAll(() => t?.close());

const post = (payload: unknown) => t.app.inject({ method: 'POST', url: '/api/assets/import', headers: key, payload: payload as object });
const cdx = (components: unknown) => ({ format: 'cyclonedx', content: { bomFormat: 'CycloneDX', metadata: { component: { name: 'h' } }, components } });
const HEADER = 'identifier,kind,platform,internetFacing,vendor,product,version\n';

async function softwareOf(identifier: string) {
  const res = (await t.app.inject({ url: `/api/assets?search=${encodeURIComponent(identifier)}`, headers: key })).json();
  return res.assets.find((a: { identifier: string }) => a.identifier === identifier);
}

describe('imports never answer 500', () => {
  it('reports a CycloneDX component of the wrong shape as a row error and keeps the good ones', async () => {
    const cases: Array<[unknown, string]> = [
      [[{ purl: 123 }], 'purl'],
      [[{ name: 5 }], 'name'],
      [[{ name: { a: 1 } }], 'name'],
      [[{ name: 'x', publisher: 42 }], 'publisher'],
      [[{ name: 'x', components: { a: 1 } }], 'components'],
      [[null], 'component'],
      [[{ name: 'P'.repeat(500_000) }], 'product'],
      [[{ name: 'x', version: 'v'.repeat(101) }], 'version'],
    ];
    for (const [components, field] of cases) {
      const res = await post(cdx([{ name: 'good', version: '1.0' }, ...(components as unknown[])]));
      expect(res.statusCode, JSON.stringify(components).slice(0, 80)).toBe(200);
      const body = res.json();
      expect(body.errors, field).toHaveLength(1);
      expect(body.errors[0].row, field).toBe(2);
      expect(body.errors[0].message, field).toContain(field);
    }
    expect((await softwareOf('h')).software).toEqual([{ vendor: '', product: 'good', version: '1.0', cpe: null, purl: null }]);
  });

  it('reads a purl with a bad percent-encoding as written', async () => {
    const res = await post(cdx([{ purl: 'pkg:npm/foo%@1.0' }]));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ created: 0, updated: 1, errors: [] });
    expect((await softwareOf('h')).software).toEqual([{ vendor: '', product: 'foo%', version: '1.0', cpe: null, purl: 'pkg:npm/foo%@1.0' }]);
  });

  it('answers 400 naming the field for a document that is not the format', async () => {
    for (const payload of [
      cdx({ a: 1 }),
      { format: 'cyclonedx', content: { spdxVersion: 'SPDX-2.3' }, assetIdentifier: 'x' },
      { format: 'cyclonedx', content: { bomFormat: 'CycloneDX', metadata: { component: { name: { a: 1 } } }, components: [] } },
      { format: 'osquery', content: { a: 1 }, assetIdentifier: 'x' },
      { format: 'osquery', content: [{ name: 'x' }] },
      { format: 'osquery', content: { hostIdentifier: 7, snapshot: [] } },
    ]) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toMatchObject({ error: 'Validation failed', issues: [{ path: expect.stringMatching(/^(content|assetIdentifier)/), code: 'invalid_import', location: 'body' }] });
    }
    const notCdx = await post({ format: 'cyclonedx', content: { spdxVersion: 'SPDX-2.3' }, assetIdentifier: 'x' });
    expect(notCdx.json().issues[0]).toEqual({ path: 'content.bomFormat', message: 'content is not a CycloneDX JSON document (bomFormat must be "CycloneDX")', code: 'invalid_import', location: 'body' });
  });

  it('reports osquery rows of the wrong shape as row errors', async () => {
    const rows = [{ name: 'ok', version: '1' }, { name: 5 }, { name: 'x', version: 5, maintainer: 'm' }, { name: 'x', publisher: { a: 1 } }, null, 'str'];
    const res = await post({ format: 'osquery', content: rows, assetIdentifier: 'osq-1' });
    expect(res.statusCode).toBe(200);
    expect(res.json().errors.map((e: { row: number }) => e.row)).toEqual([2, 3, 4, 5, 6]);
    expect(res.json().errors[0].message).toContain('name');
    expect(res.json().errors[1].message).toContain('version');
    expect(res.json().errors[2].message).toContain('publisher');
    expect((await softwareOf('osq-1')).software).toEqual([{ vendor: '', product: 'ok', version: '1', cpe: null, purl: null }]);
  });

  it('reports a CSV field longer than the asset rules allow as a row error', async () => {
    const res = await post({ format: 'csv', content: `${HEADER}csv-1,host,linux,false,acme,${'p'.repeat(1_000_000)},1\ncsv-1,host,linux,false,acme,ok,2\n` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ created: 1, updated: 0, errors: [{ row: 2, message: expect.stringContaining('product') }] });
    expect((await softwareOf('csv-1')).software).toEqual([{ vendor: 'acme', product: 'ok', version: '2', cpe: null, purl: null }]);
  });
});

describe('imports apply the rules of POST /api/assets to every row', () => {
  it('refuses identifiers, kinds and platforms beyond the asset limits', async () => {
    const csv = `${HEADER}${'i'.repeat(256)},host,linux,false,a,b,1\nk-1,${'k'.repeat(51)},linux,false,a,b,1\np-1,host,${'l'.repeat(51)},false,a,b,1\nfine-1,host,linux,false,a,b,1\n`;
    const res = await post({ format: 'csv', content: csv });
    expect(res.json()).toEqual({
      created: 1,
      updated: 0,
      errors: [
        { row: 2, message: expect.stringContaining('identifier') },
        { row: 3, message: expect.stringContaining('kind') },
        { row: 4, message: expect.stringContaining('platform') },
      ],
    });
    const long = await post({ format: 'cyclonedx', content: { bomFormat: 'CycloneDX', metadata: { component: { name: 'x'.repeat(100_000) } }, components: [] } });
    expect(long.statusCode).toBe(400);
    expect(long.json().issues[0].path).toBe('content.metadata.component.name');
    const osq = await post({ format: 'osquery', content: { hostIdentifier: 'h'.repeat(256), snapshot: [] } });
    expect(osq.statusCode).toBe(400);
    expect(osq.json().issues[0].path).toBe('content.hostIdentifier');
  });

  it('answers 413 naming the limit when one import would create too much', async () => {
    const assets = await post({ format: 'csv', content: HEADER + Array.from({ length: 5001 }, (_, i) => `bulk-${i},host,,false,,,\n`).join('') });
    expect(assets.statusCode).toBe(413);
    expect(assets.json()).toEqual({ error: 'The import has 5001 assets; one import may create or replace at most 5000 (split it)' });
    const software = await post(cdx(Array.from({ length: 20_001 }, (_, i) => ({ name: `c${i}` }))));
    expect(software.statusCode).toBe(413);
    expect(software.json()).toEqual({ error: 'The asset "h" has 20001 software entries; at most 20000 per asset' });
    const total = await post({ format: 'csv', content: HEADER + Array.from({ length: 100_001 }, (_, i) => `t-${i % 10},host,,false,,p${i},\n`).join('') });
    expect(total.statusCode).toBe(413);
    expect(total.json()).toEqual({ error: 'The import has 100001 software entries; one import may hold at most 100000 (split it)' });
    expect((await t.app.inject({ url: '/api/assets?search=bulk-', headers: key })).json().totalCount).toBe(0);
  });
});
