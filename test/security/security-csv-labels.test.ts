import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { seedIntel } from '../support/intel-data.js';
import { userWithPermissions } from '../support/actors.js';

/** Issue 25 item 3 (CSV formula injection) and item 8 (a renamed source's indicators carry the new name out). */
let t: TestContext;
let admin: Record<string, string>;
let reader: Record<string, string>;
const FORMULA = "-1+cmd|' /C calc'!A0";

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_RATE_LIMIT_PER_MINUTE: '0' } });
  admin = bearer(t.orgA.apiKey.key);
  reader = bearer((await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read'])).key);
});
afterAll(() => t?.close());

describe('every CSV cell follows the OWASP rule', () => {
  it('prefixes a source name that looks like a negative number followed by a formula', async () => {
    const b = await seedIntel(t.database.db, t.orgB.organization.id, { items: 1, sourceName: 'b' });
    await t.database.db.updateTable('intelIndicators').set({ sourceLabel: FORMULA }).where('itemId', 'in', b.itemIds).execute();
    const res = await t.app.inject({ url: '/iocs/export?format=csv&type=ipv4', headers: bearer(t.orgB.apiKey.key) });
    expect(res.statusCode).toBe(200);
    const row = res.body.split('\r\n')[1]!;
    expect(row).toMatch(/^ipv4,203\.0\.113\.1,80,/);
    expect(row.split(',')[7]).toBe(`'${FORMULA}`);
  });
});

describe('renaming a source', () => {
  it('renames the source label of its indicators already served by /iocs, exports and TAXII', async () => {
    const seeded = await seedIntel(t.database.db, t.orgA.organization.id, { items: 1, sourceName: 'renamed' });
    await t.app.inject({ url: '/iocs/export?format=csv', headers: reader }); // served once under the old name
    const put = await t.app.inject({ method: 'PUT', url: `/sources/${seeded.sourceId}`, headers: admin, payload: { displayName: 'Partner CERT feed' } });
    expect(put.statusCode).toBe(200);
    const iocs = (await t.app.inject({ url: `/iocs?search=203.0.113.1`, headers: reader })).json();
    expect(iocs.rows.map((r: { sourceLabel: string }) => r.sourceLabel)).toEqual(['Partner CERT feed']);
    const csv = (await t.app.inject({ url: '/iocs/export?format=csv&type=ipv4', headers: reader })).body;
    expect(csv).toContain(',Partner CERT feed,');
    expect(csv).not.toContain(',renamed,');
    const stix = (await t.app.inject({ url: '/iocs/export?format=stix', headers: reader })).json() as { objects: Array<{ type: string; name?: string; labels?: string[] }> };
    expect(stix.objects.find((o) => o.type === 'indicator' && o.name === '203.0.113.1')!.labels).toEqual(['Partner CERT feed']);
  });
});
