import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { httpUrlOrNull } from '../../src/modules/alerts/alerts.fns.js';

/** Issue 25 items 6 (alert answers need alert.read), 7 (deactivation ends sessions) and 8 (LIKE, logTable, externalUrl). */
let t: TestContext;
let admin: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_RATE_LIMIT_PER_MINUTE: '0' } });
  admin = bearer(t.orgA.apiKey.key);
});
afterAll(() => t?.close());

const READ_MISSING = { error: 'Missing required permissions', missingPerms: ['alert.read'] };

describe('every answer that carries an alert needs alert.read', () => {
  it('alert.triage alone cannot read an alert through a write', async () => {
    const alert = (await t.app.inject({ method: 'POST', url: '/api/alerts', headers: admin, payload: { title: 'Secret incident', severity: 'high', dedupeKey: 'k-1' } })).json().alert;
    const det = (await t.app.inject({ method: 'POST', url: '/api/code-detections', headers: admin, payload: { name: 'D', severity: 'low' } })).json();
    const triager = bearer((await userWithPermissions(t.database.db, t.orgA.organization.id, ['alert.triage'])).key);
    const manager = bearer((await userWithPermissions(t.database.db, t.orgA.organization.id, ['alert.manage'])).key);
    expect((await t.app.inject({ url: `/api/alerts/${alert.displayId}`, headers: triager })).json()).toEqual(READ_MISSING);
    const writes: Array<[string, string, Record<string, string>, unknown]> = [
      ['POST', `/api/alerts/${alert.displayId}/severity`, triager, { severity: 'high' }],
      ['POST', `/api/alerts/${alert.displayId}/status`, triager, { status: 'in_progress' }],
      ['PATCH', `/api/alerts/${alert.displayId}`, triager, { title: 'x' }],
      ['POST', '/api/alerts', triager, { title: 'probe', dedupeKey: 'k-1' }],
      ['POST', `/api/code-detections/${det.id}/hits`, triager, { payload: {} }],
      ['POST', `/api/alerts/${alert.displayId}/assign`, manager, { agentId: '00000000-0000-7000-8000-000000000000' }],
    ];
    for (const [method, url, headers, payload] of writes) {
      const res = await t.app.inject({ method: method as 'POST', url, headers, payload: payload as object });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json(), `${method} ${url}`).toEqual(READ_MISSING);
    }
    // Answers that carry no alert stay open to alert.triage.
    expect((await t.app.inject({ method: 'POST', url: `/api/alerts/${alert.displayId}/comments`, headers: triager, payload: { bodyMarkdown: 'seen' } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: '/api/alerts/bulk/status', headers: triager, payload: { alertIds: [alert.displayId], status: 'in_progress' } })).statusCode).toBe(200);
    const both = bearer((await userWithPermissions(t.database.db, t.orgA.organization.id, ['alert.triage', 'alert.read'])).key);
    expect((await t.app.inject({ method: 'POST', url: `/api/alerts/${alert.displayId}/severity`, headers: both, payload: { severity: 'high' } })).statusCode).toBe(200);
  });
});

describe('deactivation ends console sessions', () => {
  it('a session does not come back when the user is reactivated', async () => {
    const user = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read']);
    const signIn = await t.app.inject({ method: 'POST', url: '/api/session', payload: { apiKey: user.key } });
    expect(signIn.statusCode).toBe(200);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    expect((await t.app.inject({ url: '/sources', headers: { cookie } })).statusCode).toBe(200);
    const patch = (deactivated: boolean) => t.app.inject({ method: 'PATCH', url: `/api/users/${user.userId}`, headers: admin, payload: { deactivated } });
    expect((await patch(true)).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/sources', headers: { cookie } })).statusCode).toBe(401);
    expect((await patch(false)).statusCode).toBe(200);
    const after = await t.app.inject({ url: '/sources', headers: { cookie } });
    expect(after.statusCode).toBe(401);
    expect(after.json()).toEqual({ error: 'The console session was signed out' });
    // Their key works again (reactivation restores keys), and signs in afresh.
    expect((await t.app.inject({ url: '/sources', headers: bearer(user.key) })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: '/api/session', payload: { apiKey: user.key } })).statusCode).toBe(200);
  });
});

describe('smaller ones', () => {
  it('asset search treats % and _ as characters', async () => {
    for (const identifier of ['web-1', 'db_1', '100%-up']) {
      expect((await t.app.inject({ method: 'POST', url: '/api/assets', headers: admin, payload: { identifier } })).statusCode).toBe(200);
    }
    const search = async (q: string) => (await t.app.inject({ url: `/api/assets?search=${encodeURIComponent(q)}`, headers: admin })).json().assets.map((a: { identifier: string }) => a.identifier);
    expect(await search('%')).toEqual(['100%-up']);
    expect(await search('_')).toEqual(['db_1']);
    expect(await search('b-')).toEqual(['web-1']);
  });

  it('externalUrl takes http(s) only', async () => {
    for (const externalUrl of ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd']) {
      const res = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: admin, payload: { title: 'x', externalUrl } });
      expect(res.statusCode, externalUrl).toBe(400);
      expect(res.json().issues[0], externalUrl).toMatchObject({ path: 'externalUrl', message: 'must be an http(s) URL' });
    }
    const ok = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: admin, payload: { title: 'x', externalUrl: 'https://tracker.example/1' } });
    expect(ok.json().alert.externalUrl).toBe('https://tracker.example/1');
    // Writers without the API schema (webhook payload mappings, agent tools) go through the same rule when the alert is created.
    expect(['javascript:alert(1)', 'data:text/html,x', 'JAVASCRIPT:x', 'not a url', '', null].map(httpUrlOrNull)).toEqual([null, null, null, null, null, null]);
    expect(httpUrlOrNull('http://jira.example/browse/SEC-1')).toBe('http://jira.example/browse/SEC-1');
  });

  it("changing a detection's logTable says so when saved routes name the old one", async () => {
    const agentId = (await t.app.inject({ method: 'POST', url: '/api/agents', headers: admin, payload: { name: 'Triage', systemPrompt: 'x' } })).json().id;
    const body = { name: 'Okta', severity: 'high', logTable: { source: 'okta', stream: 'system_log' } };
    const det = (await t.app.inject({ method: 'POST', url: '/api/code-detections', headers: admin, payload: body })).json();
    const routes = { routes: [{ name: 'Okta route', enabled: true, conditions: [{ type: 'logTable', source: 'okta', stream: 'system_log' }], responseAgentId: agentId }] };
    expect((await t.app.inject({ method: 'PUT', url: '/api/alert-triage-routes', headers: admin, payload: routes })).statusCode).toBe(200);
    const moved = await t.app.inject({ method: 'PUT', url: `/api/code-detections/${det.id}`, headers: admin, payload: { ...body, logTable: { source: 'okta', stream: 'audit' } } });
    expect(moved.statusCode).toBe(409);
    expect(moved.json()).toEqual({ error: 'Log table okta/system_log is used by triage route(s) "Okta route"; change those routes first (no other detection provides it)' });
    const removed = await t.app.inject({ method: 'DELETE', url: `/api/code-detections/${det.id}`, headers: admin });
    expect(removed.statusCode).toBe(409);
    // Saved routes stay valid: saving them again unchanged succeeds.
    expect((await t.app.inject({ method: 'PUT', url: '/api/alert-triage-routes', headers: admin, payload: routes })).statusCode).toBe(200);
    // With another detection providing the table, the change is fine.
    expect((await t.app.inject({ method: 'POST', url: '/api/code-detections', headers: admin, payload: { ...body, name: 'Okta 2' } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'PUT', url: `/api/code-detections/${det.id}`, headers: admin, payload: { ...body, logTable: { source: 'okta', stream: 'audit' } } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'PUT', url: '/api/alert-triage-routes', headers: admin, payload: routes })).statusCode).toBe(200);
  });
});
