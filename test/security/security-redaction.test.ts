import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { redactSecrets, redactUrlSecrets } from '../../src/platform/outbound/url-secrets.js';

/** Issue 19 item 5: credentials inside URLs are shown only to callers who could change them. */
let t: TestContext;
let admin: Record<string, string>;
const TEAMS = 'https://prod-42.westeurope.logic.azure.com:443/workflows/8f3a/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=Zm9vYmFyU0VDUkVUc2ln';
const FEED = 'https://feeds.example.com/rss?category=apt&apikey=SECRETKEY123';

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
});
afterAll(() => t.close());

describe('credentials inside URLs', () => {
  it('a Teams workflow URL signature and a feed API key are redacted for .read roles, whole for .manage', async () => {
    expect((await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: admin, payload: { type: 'teams', name: 'SOC channel', config: { url: TEAMS } } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: '/sources', headers: admin, payload: { kind: 'rss', name: 'Vendor feed', feedUrl: FEED } })).statusCode).toBe(200);
    const reader = bearer((await userWithPermissions(t.database.db, t.orgA.organization.id, ['destination.read', 'intel.read'])).key);

    const asReader = await t.app.inject({ url: '/api/output-destinations', headers: reader });
    expect(asReader.body).not.toContain('Zm9vYmFyU0VDUkVUc2ln');
    expect(asReader.json()[0].config.url).toContain('sig=REDACTED');
    const one = await t.app.inject({ url: `/api/output-destinations/${asReader.json()[0].id}`, headers: reader });
    expect(one.body).not.toContain('Zm9vYmFyU0VDUkVUc2ln');
    expect((await t.app.inject({ url: '/api/output-destinations', headers: admin })).json()[0].config.url).toBe(TEAMS);

    for (const url of ['/sources', '/custom-rss-feeds']) {
      const res = await t.app.inject({ url, headers: reader });
      expect(res.body, url).not.toContain('SECRETKEY123');
      expect(res.body, url).toContain('apikey=REDACTED');
      expect((await t.app.inject({ url, headers: admin })).body, url).toContain('SECRETKEY123');
    }
  });

  it('refuses a user name or password in a URL, with a message saying where the credential goes', async () => {
    const source = await t.app.inject({ method: 'POST', url: '/sources', headers: admin, payload: { kind: 'rss', name: 'x', feedUrl: 'https://bob:hunter2@feeds.example.com/rss' } });
    expect(source.statusCode).toBe(400);
    expect(source.json().issues[0]).toMatchObject({ path: 'feedUrl', message: expect.stringContaining('credential field') });
    const destination = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: admin, payload: { type: 'webhook', name: 'x', config: { url: 'https://bob:hunter2@soar.example.com/in', authType: 'bearer' } } });
    expect(destination.statusCode).toBe(400);
    expect(destination.json().issues[0].path).toBe('config.url');
    const provider = await t.app.inject({ method: 'POST', url: '/api/model-providers', headers: admin, payload: { name: 'x', type: 'openai-compatible', baseUrl: 'http://u:p@ollama.internal:11434/v1' } });
    expect(provider.statusCode).toBe(400);
  });

  it('redacts inside free text (stored errors, logs)', () => {
    expect(redactUrlSecrets('https://u:p@h.example/x?token=abc&page=2')).toBe('https://REDACTED@h.example/x?token=REDACTED&page=2');
    expect(redactSecrets('GET https://h.example/feed?api_key=abc failed: 401')).toBe('GET https://h.example/feed?api_key=REDACTED failed: 401');
    expect(redactUrlSecrets('https://h.example/feed?page=2')).toBe('https://h.example/feed?page=2');
  });
});

describe('literal private addresses are refused when saved', () => {
  it('names the rule in a 400 when private networks are not allowed (every spelling the URL parser knows)', async () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'http://2130706433/hook', 'http://0x7f.1/hook', 'http://[::ffff:10.0.0.5]/hook', 'http://169.254.169.254/latest', 'http://localhost/hook']) {
      const res = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: admin, payload: { type: 'webhook', name: 'x', config: { url, authType: 'bearer' } } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().issues[0], url).toMatchObject({ path: 'config.url', code: 'forbidden_address', message: expect.stringContaining('RAMPART_ALLOW_PRIVATE_NETWORKS') });
    }
    const feed = await t.app.inject({ method: 'POST', url: '/sources', headers: admin, payload: { kind: 'rss', name: 'x', feedUrl: 'http://192.168.1.20/feed.xml' } });
    expect(feed.json().issues[0]).toMatchObject({ path: 'feedUrl', code: 'forbidden_address' });
    // A public address, or a name (resolved and checked at fetch time), is fine.
    expect((await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: admin, payload: { type: 'webhook', name: 'ok', config: { url: 'https://hooks.example.com/in', authType: 'bearer' } } })).statusCode).toBe(200);
  });

  it('with private networks allowed, only cloud metadata stays refused', async () => {
    const onPrem = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
    try {
      const headers = bearer(onPrem.orgA.apiKey.key);
      const post = (url: string) => onPrem.app.inject({ method: 'POST', url: '/api/output-destinations', headers, payload: { type: 'webhook', name: 'x', config: { url, authType: 'bearer' } } });
      expect((await post('http://10.1.2.3/hook')).statusCode).toBe(200);
      expect((await post('http://169.254.169.254/latest/meta-data')).json().issues[0].code).toBe('forbidden_address');
    } finally {
      await onPrem.close();
    }
  });
});
