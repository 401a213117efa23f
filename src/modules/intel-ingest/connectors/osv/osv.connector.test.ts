import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { createGuardedClient } from '../../../../platform/outbound/index.js';
import type { IntelEntry } from '../../../intel/index.js';
import type { SourceConfig } from '../connector.js';
import { startFakeOsv } from '../../../../../test/support/fakes/osv-server.js';
import { osvConnector } from './osv.connector.js';

/**
 * The OSV connector asks the vulnerability store which records it already holds unchanged
 * (ConnectorLimits.settledRecords, by id and `modified`) before building any entry: those
 * records never become entries. Real records: the GitHub Advisory Database sample
 * (test/fixtures/osv, CC-BY 4.0, see its README).
 */
const records = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../../../../test/fixtures/osv/github-advisory-database.osv.json'), 'utf8')) as Array<{ id: string; modified: string }>;
let osv: Awaited<ReturnType<typeof startFakeOsv>>;
const http = createGuardedClient({ allowPrivateNetworks: true, retries: 0 });
const source = (maxEntries: number): SourceConfig => ({ kind: 'api', apiType: 'osv', displayName: 'OSV', feedUrl: null, serverUrl: `${osv.url}/Maven/all.zip`, collectionId: null, authType: null, username: null, apiKey: null, maxEntries });

beforeAll(async () => {
  osv = await startFakeOsv(records);
});
afterAll(async () => {
  await osv?.close();
});

async function read(maxEntries: number, settledRecords: (r: ReadonlyArray<{ id: string; modified: string }>) => Promise<ReadonlySet<string>>): Promise<IntelEntry[]> {
  const result = await osvConnector.fetch(source(maxEntries), { etag: null, lastModified: null, cursor: {} }, http, { settledRecords });
  const out: IntelEntry[] = [];
  try {
    for await (const batch of result.batches!) out.push(...batch);
  } finally {
    await result.dispose?.();
  }
  return out;
}

describe('the OSV connector skips records the store holds unchanged', () => {
  it('asks by id and modified, and builds only the others', async () => {
    const asked: Array<{ id: string; modified: string }> = [];
    const settled = new Set(records.filter((_, i) => i % 2 === 0).map((r) => r.id));
    const entries = await read(10_000, async (rs) => (asked.push(...rs), settled));
    expect(asked.map((a) => a.id).sort()).toEqual(records.map((r) => r.id).sort());
    expect(Object.fromEntries(asked.map((a) => [a.id, a.modified]))).toEqual(Object.fromEntries(records.map((r) => [r.id, r.modified])));
    expect(entries.map((e) => e.externalId).sort()).toEqual(records.filter((r) => !settled.has(r.id)).map((r) => r.id).sort());
  });

  it('with nothing settled every record is built, as without the store', async () => {
    expect((await read(10_000, async () => new Set())).length).toBe(records.length);
  });

  it('a skipped record counts toward maxEntries: the cap stays in the export order', async () => {
    let order: string[] = [];
    await read(10_000, async (rs) => ((order = rs.map((r) => r.id)), new Set()));
    const entries = await read(3, async () => new Set([order[0]!]));
    expect(entries.map((e) => e.externalId)).toEqual(order.slice(1, 3));
  });
});
