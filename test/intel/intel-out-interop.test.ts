import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, bearer, type TestContext } from '../support/app.js';
import { seedIntel } from '../support/intel-data.js';
import { syncRunner } from '../support/sync.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';
import { loadStixSchemas, STIX_SCHEMAS_DIR } from '../support/stix-schemas.js';
import { SHARED_DIR } from '../support/shared-dir.js';
import { createOrganization } from '../../src/modules/organizations/organizations.service.js';
import { allCollectionId, indicatorUuid } from '../../src/modules/intel-out/stix.fns.js';

/**
 * What Rampart serves, read by clients other than its own tests: the OASIS taxii2-client (Python),
 * the OASIS STIX 2.1 JSON schemas, and Rampart's own TAXII and MISP-feed connectors in other
 * organizations (a second instance ingesting what the first serves: the same indicators out as in).
 */
const TAXII_CLIENT_DIR = path.join(SHARED_DIR, 'interop/taxii2-client');
const PYTHON = '/usr/bin/python3';

function python(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(PYTHON, ['-c', script, ...args], { env: { ...process.env, PYTHONPATH: TAXII_CLIENT_DIR }, timeout: 60_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** Why the taxii2-client cannot run here, or null when it can. */
async function taxiiClientMissing(): Promise<string | null> {
  if (!fs.existsSync(path.join(TAXII_CLIENT_DIR, 'taxii2client'))) return `the OASIS taxii2-client is not at ${TAXII_CLIENT_DIR}`;
  if (!fs.existsSync(PYTHON)) return `${PYTHON} is not installed`;
  const probe = await python('import requests, pytz, six, taxii2client.v21', []);
  return probe.code === 0 ? null : `python3 lacks its dependencies (apt-get install -y python3-requests python3-tz): ${probe.stderr.trim().split('\n').at(-1)}`;
}

// Pulls every collection page by page (as_pages), then again incrementally from added_after,
// reads every object by id and its versions; prints what it saw as JSON.
const PULL = `
import json, sys
from taxii2client.v21 import Server, as_pages
url, key, since = sys.argv[1], sys.argv[2], (sys.argv[3] if len(sys.argv) > 3 else None)
server = Server(url, user="rampart", password=key)
out = {}
for root in server.api_roots:
    for c in root.collections:
        kwargs = {"added_after": since} if since else {}
        ids, pages = [], 0
        for page in as_pages(c.get_objects, per_request=2, **kwargs):
            pages += 1
            ids += [o["id"] for o in page.get("objects", [])]
        read = 0
        for i in ids:
            env = c.get_object(i)
            assert env["objects"][0]["id"] == i
            versions = c.object_versions(i)["versions"]
            assert versions == [env["objects"][0]["modified"]], versions
            read += 1
        manifest = [m["date_added"] for page in as_pages(c.get_manifest, per_request=50, **kwargs) for m in page.get("objects", [])]
        out[c.id] = {"title": c.title, "ids": ids, "pages": pages, "read": read, "lastAdded": max(manifest) if manifest else None}
print(json.dumps(out))
`;

describe('intel out interop', () => {
  let t: TestContext;
  let base: string;
  let reader: TestUser;
  const org = () => t.orgA.organization.id;

  beforeAll(async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { RAMPART_BASE_URL: base, RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', RAMPART_RATE_LIMIT_PER_MINUTE: '0' } });
    await t.app.listen({ port, host: '127.0.0.1' });
    const first = await seedIntel(t.database.db, org(), { items: 3 });
    await seedIntel(t.database.db, org(), { items: 2, sourceName: 'second' });
    const now = new Date();
    const more: Array<[string, string]> = [['url', 'https://secure-docs-portal.com/login.php'], ['md5', 'd41d8cd98f00b204e9800998ecf8427e'], ['email', 'billing@invoice-portal.example'], ['filename', 'invoice_2026.js']];
    await t.database.db.insertInto('intelIndicators').values(more.map(([type, value]) => ({ id: uuidv7(), organizationId: org(), itemId: first.itemIds[1]!, type, value, normalizedValue: value, confidence: 0.8, firstSeen: now, lastSeen: now, ttlDays: 30, intelTitle: 't', sourceLabel: 'Seeded source', createdAt: now }))).execute();
    reader = await userWithPermissions(t.database.db, org(), ['intel.read']);
  }, 60_000);
  afterAll(() => t?.close());

  async function servedIndicators(orgId: string): Promise<string[]> {
    const rows = await t.database.db.selectFrom('intelIndicators').select(['type', 'normalizedValue']).distinct().where('organizationId', '=', orgId).execute();
    return rows.map((r) => `${r.type}:${r.normalizedValue}`).sort();
  }

  it('the OASIS taxii2-client pulls every collection page by page, reads every object, and pulls again incrementally', async (ctx) => {
    const missing = await taxiiClientMissing();
    if (missing) return ctx.skip(`taxii2-client interop skipped: ${missing}`);
    const full = await python(PULL, [`${base}/taxii2/`, reader.key]);
    expect(full.code, full.stderr).toBe(0);
    const seen = JSON.parse(full.stdout) as Record<string, { ids: string[]; pages: number; read: number; lastAdded: string }>;
    const all = seen[allCollectionId(org())]!;
    expect(Object.keys(seen)).toHaveLength(3); // all, and one per source
    expect(all.ids).toHaveLength((await servedIndicators(org())).length);
    expect(all.read).toBe(all.ids.length);
    expect(all.pages).toBeGreaterThan(5);
    expect(new Set(all.ids).size).toBe(all.ids.length);

    // One indicator changes; the incremental pull (added_after = the last date_added seen,
    // inclusive) returns it and nothing else that was unchanged after that instant.
    const last = all.lastAdded;
    await new Promise((r) => setTimeout(r, 5));
    await t.database.db.updateTable('intelIndicators').set({ confidence: 0.99 }).where('organizationId', '=', org()).where('normalizedValue', '=', 'invoice_2026.js').execute();
    const incremental = await python(PULL, [`${base}/taxii2/`, reader.key, new Date(Date.parse(last) + 1).toISOString()]);
    expect(incremental.code, incremental.stderr).toBe(0);
    const again = JSON.parse(incremental.stdout) as typeof seen;
    expect(again[allCollectionId(org())]!.ids).toEqual([`indicator--${indicatorUuid(org(), 'filename', 'invoice_2026.js')}`]);
  }, 120_000);

  it('serves TAXII objects valid against the OASIS STIX 2.1 schemas', async (ctx) => {
    const schemas = loadStixSchemas();
    if (!schemas) return ctx.skip(`OASIS STIX schemas not found at ${STIX_SCHEMAS_DIR}`);
    const res = await t.app.inject({ url: `/taxii2/api/collections/${allCollectionId(org())}/objects/`, headers: { ...bearer(reader.key), accept: 'application/taxii+json;version=2.1' } });
    const objects = (res.json() as { objects: Array<Record<string, unknown>> }).objects;
    expect(objects.length).toBeGreaterThan(10);
    expect(objects.flatMap((o) => schemas.object(o))).toEqual([]);
  });

  it('round-trips through Rampart\'s own TAXII and MISP-feed connectors: the same indicators out as in', async () => {
    const served = await servedIndicators(org());
    const sync = syncRunner(t.database.db, { secrets: t.secrets });
    const viaTaxii = await createOrganization(t.database.db, { name: 'TAXII consumer', adminEmail: 'taxii@c.test' });
    const viaFeed = await createOrganization(t.database.db, { name: 'Feed consumer', adminEmail: 'feed@c.test' });
    const sources: Array<[typeof viaTaxii, Record<string, unknown>]> = [
      [viaTaxii, { kind: 'api', apiType: 'taxii', name: 'Rampart A', serverUrl: `${base}/taxii2/`, apiKey: reader.key, authType: 'basic', username: 'rampart' }],
      [viaFeed, { kind: 'api', apiType: 'misp_feed', name: 'Rampart A feed', serverUrl: `${base}/misp-feed/${allCollectionId(org())}/`, apiKey: reader.key }],
    ];
    for (const [consumer, body] of sources) {
      const res = await t.app.inject({ method: 'POST', url: '/sources', headers: bearer(consumer.apiKey.key), payload: body });
      expect(res.statusCode, res.body).toBe(200);
      const { job, thrown } = await sync.sync(consumer.organization.id, res.json().id);
      expect(thrown).toBeNull();
      expect(job.status, JSON.stringify(job)).toBe('succeeded');
      // What the connector delivered is exactly what was served; the consumer's own pipeline
      // may add what it derives (the host of a URL), never lose one.
      expect(await deliveredIndicators(consumer.organization.id)).toEqual(served);
      expect(await servedIndicators(consumer.organization.id)).toEqual(expect.arrayContaining(served));
    }
  }, 120_000);

  it('serves a MISP feed: manifest, hashes.csv and events, per collection, 404 elsewhere', async () => {
    const feed = `/misp-feed/${allCollectionId(org())}`;
    const h = { authorization: `Basic ${Buffer.from(`x:${reader.key}`).toString('base64')}` };
    const manifest = (await t.app.inject({ url: `${feed}/manifest.json`, headers: h })).json() as Record<string, { timestamp: string; info: string }>;
    const uuids = Object.keys(manifest);
    expect(uuids).toHaveLength(5);
    const hashes = (await t.app.inject({ url: `${feed}/hashes.csv`, headers: h })).body.trim().split('\n');
    expect(hashes.every((l) => /^[0-9a-f]{32},[0-9a-f-]{36}$/.test(l))).toBe(true);
    expect(hashes.length).toBe((await servedIndicatorRows()).length);
    const event = (await t.app.inject({ url: `${feed}/${uuids[0]}.json`, headers: h })).json() as { Event: { uuid: string; info: string; Attribute: unknown[] } };
    expect(event.Event).toMatchObject({ uuid: uuids[0], info: manifest[uuids[0]!]!.info });
    expect(event.Event.Attribute.length).toBeGreaterThan(0);
    for (const url of [`/misp-feed/${allCollectionId(t.orgB.organization.id)}/manifest.json`, `${feed}/00000000-0000-4000-8000-000000000000.json`, `${feed}/x.json`]) {
      const res = await t.app.inject({ url, headers: h });
      expect(res.statusCode).toBe(404);
    }
    expect((await t.app.inject({ url: `${feed}/manifest.json` })).statusCode).toBe(401);
    const noIntel = await userWithPermissions(t.database.db, org(), ['alert.read']);
    const denied = await t.app.inject({ url: `${feed}/hashes.csv`, headers: bearer(noIntel.key) });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['intel.read'] });
  });

  async function deliveredIndicators(orgId: string): Promise<string[]> {
    const items = await t.database.db.selectFrom('intelItems').select('structuredIndicators').where('organizationId', '=', orgId).execute();
    const all = items.flatMap((i) => (typeof i.structuredIndicators === 'string' ? JSON.parse(i.structuredIndicators) : i.structuredIndicators) as Array<{ type: string; value: string }>);
    return [...new Set(all.map((i) => `${i.type}:${i.value}`))].sort();
  }

  async function servedIndicatorRows() {
    return t.database.db.selectFrom('intelIndicators').select(['itemId', 'type', 'normalizedValue']).distinct().where('organizationId', '=', org()).execute();
  }
});
