import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.js';
import { startFakeMcp, type FakeMcp } from '../support/fakes/mcp-server.js';
import { syncRunner } from '../support/sync.js';

/**
 * Issue 41 item 4, as the attack: a user with `.manage` points the URL a stored write-only
 * secret is sent to at a host of theirs, hoping the secret follows. Each kind answers 400 naming
 * the secret's field unless the request gives the secret again; the host of the new origin never
 * sees the old secret. A path or query change on the same origin keeps it.
 */
let t: TestContext;
let admin: Record<string, string>;
let org: string;
let runner: ReturnType<typeof syncRunner>;
let legit: FixtureServer;
let attacker: FixtureServer;
let mcp: FakeMcp;

const OLD_KEY = 'old-SECRET-key-0123456789';
const NEW_KEY = 'attacker-own-key-9876543210';
const csaf = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/csaf/bsi-2022-0001.json'), 'utf8');

const required = (field: string, urlField: string) => ({
  error: 'Validation failed',
  issues: [{ path: field, code: 'secret_required', location: 'body', message: `must be given again: ${urlField} now points at another origin (scheme, host or port), and a stored ${field} is sent only to the origin it was given for` }],
});
const authorizations = (s: { requests: Array<{ headers: Record<string, unknown> }> }) => s.requests.map((r) => String(r.headers.authorization ?? r.headers.apikey ?? ''));

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  admin = bearer(t.orgA.apiKey.key);
  org = t.orgA.organization.id;
  runner = syncRunner(t.database.db, { secrets: t.secrets });
  const serve = () => startFixtureServer({ '*': { body: csaf } });
  legit = await serve();
  attacker = await serve();
  mcp = await startFakeMcp({ token: OLD_KEY });
});
afterAll(async () => {
  await Promise.all([legit?.close(), attacker?.close(), mcp?.close()]);
  await t?.close();
});

describe('an intel source\'s apiKey stays with serverUrl\'s origin', () => {
  let id: string;
  const put = (payload: object) => t.app.inject({ method: 'PUT', url: `/sources/${id}`, headers: admin, payload });

  it('a new origin without the key: 400 naming apiKey, nothing changed, the new host never sees the key', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/sources', headers: admin, payload: { kind: 'api', apiType: 'csaf', name: 'Vendor PSIRT', serverUrl: `${legit.url}/advisories/a.json`, apiKey: OLD_KEY } });
    expect(created.statusCode, created.body).toBe(200);
    id = created.json().id;

    const moved = await put({ serverUrl: `${attacker.url}/advisories/a.json` });
    expect(moved.statusCode).toBe(400);
    expect(moved.json()).toEqual(required('apiKey', 'serverUrl'));
    // Another scheme or port of the same host is another origin too.
    expect((await put({ serverUrl: `${legit.url.replace('http:', 'https:')}/advisories/a.json` })).json()).toEqual(required('apiKey', 'serverUrl'));
    expect((await t.app.inject({ url: `/sources/${id}`, headers: admin })).json().serverUrl).toBe(`${legit.url}/advisories/a.json`);

    const out = await runner.sync(org, id);
    expect(out.job.status, String(out.job.error)).toBe('succeeded');
    expect(authorizations(legit)).toEqual([`Bearer ${OLD_KEY}`]);
    expect(attacker.requests).toEqual([]);
  });

  it('a path or query change on the same origin keeps the key', async () => {
    const res = await put({ serverUrl: `${legit.url}/advisories/b.json?lang=en` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().hasApiKey).toBe(true);
    await runner.sync(org, id);
    expect(legit.requests.at(-1)).toMatchObject({ url: '/advisories/b.json?lang=en', headers: { authorization: `Bearer ${OLD_KEY}` } });
  });

  it('a new origin with a key given again: 200, and only that key goes there', async () => {
    const res = await put({ serverUrl: `${attacker.url}/advisories/a.json`, apiKey: NEW_KEY });
    expect(res.statusCode, res.body).toBe(200);
    const out = await runner.sync(org, id);
    expect(out.job.status, String(out.job.error)).toBe('succeeded');
    expect(authorizations(attacker)).toEqual([`Bearer ${NEW_KEY}`]);
    expect(JSON.stringify(attacker.requests)).not.toContain(OLD_KEY);
  });

  it('holds for every apiType that sends a key (NVD\'s apiKey header)', async () => {
    const nvd = await t.app.inject({ method: 'POST', url: '/sources', headers: admin, payload: { kind: 'api', apiType: 'nvd', name: 'NVD mirror', serverUrl: `${legit.url}/rest/json/cves/2.0`, apiKey: OLD_KEY } });
    expect(nvd.statusCode, nvd.body).toBe(200);
    const moved = await t.app.inject({ method: 'PUT', url: `/sources/${nvd.json().id}`, headers: admin, payload: { serverUrl: `${attacker.url}/rest/json/cves/2.0` } });
    expect(moved.json()).toEqual(required('apiKey', 'serverUrl'));
    // A source without a stored key moves freely.
    const open = await t.app.inject({ method: 'POST', url: '/sources', headers: admin, payload: { kind: 'api', apiType: 'csaf', name: 'Open PSIRT', serverUrl: `${legit.url}/advisories/a.json` } });
    expect((await t.app.inject({ method: 'PUT', url: `/sources/${open.json().id}`, headers: admin, payload: { serverUrl: `${attacker.url}/x.json` } })).statusCode).toBe(200);
  });
});

describe('an MCP server\'s token stays with its url\'s origin', () => {
  it('a new origin without the token: 400 naming token; the tool listing still goes to the old server only; with the token: 200', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/api/mcp-servers', headers: admin, payload: { name: 'inventory', url: mcp.url, token: OLD_KEY } });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().id;
    const put = (payload: object) => t.app.inject({ method: 'PUT', url: `/api/mcp-servers/${id}`, headers: admin, payload: { name: 'inventory', ...payload } });

    const moved = await put({ url: `${attacker.url}/mcp` });
    expect(moved.statusCode).toBe(400);
    expect(moved.json()).toEqual(required('token', 'url'));
    const before = attacker.requests.length;
    const tools = await t.app.inject({ url: `/api/mcp-servers/${id}/tools`, headers: admin });
    expect(tools.statusCode, tools.body).toBe(200);
    expect(attacker.requests.length).toBe(before);

    expect((await put({ url: `${mcp.url}?tenant=acme` })).statusCode).toBe(200); // same origin: kept
    const given = await put({ url: `${attacker.url}/mcp`, token: NEW_KEY });
    expect(given.statusCode, given.body).toBe(200);
    expect(given.json()).toMatchObject({ url: `${attacker.url}/mcp`, hasToken: true });
    await t.app.inject({ url: `/api/mcp-servers/${id}/tools`, headers: admin }); // the fake is no MCP server: a 502
    expect(authorizations({ requests: attacker.requests.slice(before) })).toContain(`Bearer ${NEW_KEY}`);
    expect(JSON.stringify(attacker.requests)).not.toContain(OLD_KEY);
  });
});

describe('a model provider\'s apiKey stays with its endpoint\'s origin', () => {
  it('baseUrl, or a type whose public API is elsewhere: 400 naming apiKey unless the key is given again', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/api/model-providers', headers: admin, payload: { name: 'llm', type: 'openai', apiKey: OLD_KEY } });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().id;
    const put = (payload: object) => t.app.inject({ method: 'PUT', url: `/api/model-providers/${id}`, headers: admin, payload: { name: 'llm', ...payload } });

    const moved = await put({ type: 'openai', baseUrl: `${attacker.url}/v1` });
    expect(moved.statusCode).toBe(400);
    expect(moved.json()).toEqual(required('apiKey', 'baseUrl'));
    expect((await put({ type: 'anthropic' })).json()).toEqual(required('apiKey', 'type'));
    expect((await t.app.inject({ url: `/api/model-providers/${id}`, headers: admin })).json()).toMatchObject({ type: 'openai', baseUrl: null, hasApiKey: true });
    // The public API's own URL is the same origin as no baseUrl.
    expect((await put({ type: 'openai', baseUrl: 'https://api.openai.com/v1/' })).statusCode).toBe(200);
    const given = await put({ type: 'openai-compatible', baseUrl: `${attacker.url}/v1`, apiKey: NEW_KEY });
    expect(given.statusCode, given.body).toBe(200);
    expect(given.json()).toMatchObject({ baseUrl: `${attacker.url}/v1`, hasApiKey: true });
  });
});

describe('an output destination\'s token stays with the origin it is delivered to', () => {
  it('webhook url, an API base override, a change of type: 400 naming token unless given again', async () => {
    const webhook = { type: 'webhook', name: 'SOAR', config: { url: `${legit.url}/hooks/in`, authType: 'bearer' } };
    const created = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: admin, payload: { ...webhook, token: OLD_KEY } });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().id;
    const put = (payload: object) => t.app.inject({ method: 'PUT', url: `/api/output-destinations/${id}`, headers: admin, payload });

    const moved = await put({ ...webhook, config: { ...webhook.config, url: `${attacker.url}/hooks/in` } });
    expect(moved.statusCode).toBe(400);
    expect(moved.json()).toEqual(required('token', 'config.url'));
    expect((await put({ type: 'slack', name: 'SOAR', config: { channelIds: ['C1'], apiBaseUrl: `${attacker.url}/api` } })).json()).toEqual(required('token', 'type'));
    expect((await t.app.inject({ url: `/api/output-destinations/${id}`, headers: admin })).json()).toMatchObject({ config: { url: `${legit.url}/hooks/in` }, token: OLD_KEY });

    expect((await put({ ...webhook, config: { ...webhook.config, url: `${legit.url}/hooks/other?tenant=1` } })).statusCode).toBe(200); // same origin
    const given = await put({ ...webhook, config: { ...webhook.config, url: `${attacker.url}/hooks/in` }, token: NEW_KEY });
    expect(given.statusCode, given.body).toBe(200);
    expect(given.json()).toMatchObject({ token: NEW_KEY });

    // Slack's Web API by default, then a gateway elsewhere: the bot token must come again.
    const slack = { type: 'slack', name: 'SOC Slack', config: { channelIds: ['C1'] } };
    const s = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: admin, payload: { ...slack, token: 'xoxb-SECRET-bot-token' } });
    const moveSlack = await t.app.inject({ method: 'PUT', url: `/api/output-destinations/${s.json().id}`, headers: admin, payload: { ...slack, config: { channelIds: ['C1'], apiBaseUrl: `${attacker.url}/api` } } });
    expect(moveSlack.json()).toEqual(required('token', 'config.apiBaseUrl'));
    // Turning it into Teams (no token) drops the token instead of moving it.
    const teams = await t.app.inject({ method: 'PUT', url: `/api/output-destinations/${s.json().id}`, headers: admin, payload: { type: 'teams', name: 'SOC Slack', config: { url: `${attacker.url}/workflows/x` } } });
    expect(teams.statusCode, teams.body).toBe(200);
    expect(teams.json().hasToken).toBe(false);
  });
});
