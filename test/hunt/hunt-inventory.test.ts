import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';

const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../fixtures/hunt', name), 'utf8'));

let t: TestContext;
let reader: TestUser;
let keyA: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  keyA = bearer(t.orgA.apiKey.key);
  reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['hunt.read']);
});
afterAll(async () => t?.close());

async function jobs(): Promise<Array<{ payload: { organizationId: string; trigger: string; threatIds?: string[] } }>> {
  return (await sql<{ payload: never }>`SELECT j.payload FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier = 'hunt:reassess'`.execute(t.database.db)).rows;
}

describe('assets', () => {
  let id: string;
  it('creates, reads, lists, replaces and deletes an asset, enqueuing one debounced reassessment', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/api/assets', headers: keyA, payload: { identifier: 'vpn-1', kind: 'appliance', platform: 'network', internetFacing: true, criticality: 'critical', software: [{ vendor: 'Fortinet', product: 'FortiOS', version: '7.0.12' }] } });
    expect(created.statusCode).toBe(200);
    id = created.json().id;
    expect(created.json()).toMatchObject({ identifier: 'vpn-1', internetFacing: true, criticality: 'critical', source: 'api', software: [{ vendor: 'Fortinet', product: 'FortiOS', version: '7.0.12', cpe: null, purl: null }] });
    const dup = await t.app.inject({ method: 'POST', url: '/api/assets', headers: keyA, payload: { identifier: 'vpn-1' } });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({ error: 'An asset with identifier "vpn-1" already exists' });
    expect((await t.app.inject({ method: 'GET', url: `/api/assets/${id}`, headers: bearer(reader.key) })).json().identifier).toBe('vpn-1');
    const list = await t.app.inject({ method: 'GET', url: '/api/assets?search=forti', headers: keyA });
    expect(list.json().totalCount).toBe(1);
    const put = await t.app.inject({ method: 'PUT', url: `/api/assets/${id}`, headers: keyA, payload: { identifier: 'vpn-1', kind: 'appliance', software: [{ product: 'FortiOS', version: '7.0.13' }] } });
    expect(put.statusCode).toBe(200);
    expect(put.json().software).toEqual([{ vendor: '', product: 'FortiOS', version: '7.0.13', cpe: null, purl: null }]);
    const pending = (await jobs()).filter((j) => j.payload.organizationId === t.orgA.organization.id);
    expect(pending).toHaveLength(1);
    expect(pending[0]!.payload).toEqual({ organizationId: t.orgA.organization.id, trigger: 'inventory_change' });
  });

  it('answers 400, 403 with missingPerms, and 404 for another organization', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/api/assets', headers: keyA, payload: { identifier: '', criticality: 'extreme' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('Validation failed');
    expect(bad.json().issues.map((i: { path: string }) => i.path).sort()).toEqual(['criticality', 'identifier']);
    const denied = await t.app.inject({ method: 'POST', url: '/api/assets', headers: bearer(reader.key), payload: { identifier: 'x' } });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['hunt.manage'] });
    const other = await t.app.inject({ method: 'GET', url: `/api/assets/${id}`, headers: bearer(t.orgB.apiKey.key) });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ error: 'Asset not found' });
    expect((await t.app.inject({ method: 'DELETE', url: `/api/assets/${id}`, headers: bearer(t.orgB.apiKey.key) })).statusCode).toBe(404);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/assets/${id}`, headers: keyA });
    expect(del.json()).toEqual({ success: true });
    expect((await t.app.inject({ method: 'GET', url: `/api/assets/${id}`, headers: keyA })).statusCode).toBe(404);
  });
});

describe('imports', () => {
  it('imports a CycloneDX SBOM idempotently', async () => {
    const body = { format: 'cyclonedx', content: fixture('payments-api.cdx.json') };
    const first = await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: keyA, payload: body });
    expect(first.json()).toEqual({ created: 1, updated: 0, errors: [] });
    const again = await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: keyA, payload: body });
    expect(again.json()).toEqual({ created: 0, updated: 1, errors: [] });
    const list = (await t.app.inject({ method: 'GET', url: '/api/assets?search=payments', headers: keyA })).json();
    expect(list.totalCount).toBe(1);
    expect(list.assets[0]).toMatchObject({ identifier: 'payments-api', kind: 'application', source: 'cyclonedx' });
    expect(list.assets[0].software).toHaveLength(5);
    expect(list.assets[0].software[0]).toEqual({ vendor: 'apache', product: 'log4j-core', version: '2.14.1', cpe: 'cpe:2.3:a:apache:log4j:2.14.1:*:*:*:*:*:*:*', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' });
  });

  it('imports osquery deb_packages and programs results, reporting bad rows', async () => {
    const deb = await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: keyA, payload: { format: 'osquery', content: fixture('bastion-01.deb_packages.json'), assetIdentifier: 'bastion-01' } });
    expect(deb.json()).toEqual({ created: 1, updated: 0, errors: [{ row: 5, message: 'row has no name' }] });
    const programs = await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: keyA, payload: { format: 'osquery', content: fixture('ws-042.programs.json') } });
    expect(programs.json()).toEqual({ created: 1, updated: 0, errors: [] });
    const ws = (await t.app.inject({ method: 'GET', url: '/api/assets?search=WS-042', headers: keyA })).json().assets[0];
    expect(ws).toMatchObject({ kind: 'host', platform: 'windows', source: 'osquery' });
  });

  it('imports a CSV and rejects an unknown format', async () => {
    const csv = 'identifier,kind,platform,internetFacing,vendor,product,version\nweb-1,host,linux,true,F5,nginx,1.25.3\nweb-1,host,linux,true,OpenSSL,OpenSSL,3.0.2\n';
    expect((await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: keyA, payload: { format: 'csv', content: csv } })).json()).toEqual({ created: 1, updated: 0, errors: [] });
    const bad = await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: keyA, payload: { format: 'spdx', content: {} } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('Validation failed');
    const notCdx = await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: keyA, payload: { format: 'cyclonedx', content: { spdxVersion: 'SPDX-2.3' }, assetIdentifier: 'x' } });
    expect(notCdx.statusCode).toBe(400);
    expect(notCdx.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'content.bomFormat', message: 'content is not a CycloneDX JSON document (bomFormat must be "CycloneDX")', code: 'invalid_import', location: 'body' }] });
  });
});

describe('sightings', () => {
  it('accepts sightings (refanged) and validates them', async () => {
    const ok = await t.app.inject({ method: 'POST', url: '/api/sightings', headers: keyA, payload: { sightings: [{ value: '198.51.100[.]7', source: 'zeek-conn' }] } });
    expect(ok.json()).toEqual({ accepted: 1, matchedIndicators: 0, reassessedThreats: 0 });
    const row = await t.database.db.selectFrom('huntSightings').selectAll().where('organizationId', '=', t.orgA.organization.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ type: 'ipv4', value: '198.51.100.7', normalizedValue: '198.51.100.7' });
    const bad = await t.app.inject({ method: 'POST', url: '/api/sightings', headers: keyA, payload: { sightings: [] } });
    expect(bad.statusCode).toBe(400);
    const denied = await t.app.inject({ method: 'POST', url: '/api/sightings', headers: bearer(reader.key), payload: { sightings: [{ value: 'a.example', source: 'x' }] } });
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['hunt.manage'] });
  });
});
