import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startFixtureServer } from '../support/fixture-server.js';
import { syncRunner } from '../support/sync.js';

/**
 * ATT&CK coverage end to end: an RSS 2.0 feed served locally is synced by the real sync job (its
 * entries classified on the way, the rollups kept by intel_items' triggers), a real SigmaHQ rule
 * is imported through the API, and GET /api/coverage/attack answers from both: the technique the
 * rule detects is covered, the one only the intel names is a gap, each with the item behind it.
 */
let t: TestContext;
let close: () => Promise<void>;
const sigma = fs.readFileSync(new URL('../fixtures/sigma/proc_creation_win_powershell_base64_encoded_cmd.yml', import.meta.url), 'utf8');

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
});
afterAll(async () => {
  await close?.();
  await t.close();
});

function rssFeed(entries: Array<{ guid: string; title: string; body: string }>): string {
  const date = new Date().toUTCString();
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Vendor Threat Research</title><link>https://vendor.example/</link><language>en</language>
${entries.map((e) => `<item><guid>${e.guid}</guid><title>${e.title}</title><link>https://vendor.example/posts/${e.guid}</link><pubDate>${date}</pubDate><description><![CDATA[<p>${e.body}</p>]]></description></item>`).join('\n')}
</channel></rss>`;
}

describe('ATT&CK coverage from synced intel and imported Sigma rules', () => {
  it('marks the technique a rule detects covered and the one only intel names a gap, with their items', async () => {
    const feed = rssFeed([
      { guid: 'ps-1', title: 'Loader abuses encoded PowerShell', body: 'The loader launches powershell.exe -enc with a Base64 payload (T1059.001, Command and Scripting Interpreter: PowerShell) to fetch its second stage.' },
      { guid: 'rw-1', title: 'Ransomware affiliate encrypts hypervisors', body: 'The affiliate encrypted ESXi datastores (T1486, Data Encrypted for Impact) after disabling backups.' },
    ]);
    const server = await startFixtureServer({ '/feed.xml': { type: 'application/rss+xml; charset=utf-8', body: feed } });
    close = server.close;
    const admin = bearer(t.orgA.apiKey.key);
    const org = t.orgA.organization.id;
    const created = await t.app.inject({ method: 'POST', url: '/sources', headers: admin, payload: { kind: 'rss', name: 'Vendor research', feedUrl: `${server.url}/feed.xml` } });
    expect(created.statusCode, created.body).toBe(200);
    const synced = await syncRunner(t.database.db, { secrets: t.secrets }).sync(org, created.json().id);
    expect(synced.job).toMatchObject({ status: 'succeeded', error: null });
    expect(synced.job.stats).toMatchObject({ fetched: 2, created: 2 });

    const imported = await t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers: admin, payload: { format: 'sigma', content: sigma } });
    expect(imported.statusCode, imported.body).toBe(200);

    const res = await t.app.inject({ method: 'GET', url: '/api/coverage/attack?window=30d', headers: admin });
    expect(res.statusCode, res.body).toBe(200);
    const by = new Map(res.json().techniques.map((x: { techniqueId: string }) => [x.techniqueId, x]));
    expect(by.get('T1059')).toMatchObject({ state: 'covered', intel: { items: 1 } });
    expect(by.get('T1486')).toMatchObject({ state: 'gap', intel: { items: 1 } });
    const gap = res.json().topGaps.find((g: { techniqueId: string }) => g.techniqueId === 'T1486');
    expect(gap.recentItems.map((i: { title: string }) => i.title)).toEqual(['Ransomware affiliate encrypts hypervisors']);
  });
});
