import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { TriggerSourceSchema } from '../../src/modules/triggers/triggers.schemas.js';
import { ALERT_TRIGGER_TYPES } from '../../src/modules/alerts/routing.schemas.js';

/**
 * Issue 47 item 15: a triage route's `source` condition and simulate's `source` name only real
 * alert sources. A security engineer who writes `["api", "splunk"]` is told at once, with the
 * valid values, instead of saving a route that can never match.
 */
let t: TestContext;
let admin: Record<string, string>;
let agentId: string;

const VALID = 'detection, trigger, agent, user, jira, jira-automation, slack, linear, webhook, bugcrowd, hackerone, zscaler, darktrace, cron';
const putRoutes = (payload: unknown, headers = admin) => t.app.inject({ method: 'PUT', url: '/api/alert-triage-routes', headers, payload: payload as object });
const simulate = (payload: unknown, headers = admin) => t.app.inject({ method: 'POST', url: '/api/alert-triage-routes/simulate', headers, payload: payload as object });
const sourceRoute = (sources: string[]) => ({ name: 'By source', enabled: true, conditions: [{ type: 'source', sources }], responseAgentId: agentId });

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  agentId = (await t.app.inject({ method: 'POST', url: '/api/agents', headers: admin, payload: { name: 'API alert triage', systemPrompt: 'Triage.' } })).json().id;
});
afterAll(() => t.close());

describe('triage route sources are checked', () => {
  it('the trigger types routes know are exactly the trigger sources, but events (whose matches are detection alerts)', () => {
    expect([...ALERT_TRIGGER_TYPES].sort()).toEqual(TriggerSourceSchema.options.filter((s) => s !== 'events').sort());
  });

  it('PUT refuses unknown sources with 400 naming each and the valid ones; nothing is saved', async () => {
    const res = await putRoutes({ routes: [sourceRoute(['api', 'splunk'])] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Validation failed',
      issues: [
        { path: 'routes.0.conditions.0.sources.0', code: 'invalid_value', location: 'body', message: `"api" is not an alert source (an alert created through the API has the source \`user\`); valid: ${VALID}` },
        { path: 'routes.0.conditions.0.sources.1', code: 'invalid_value', location: 'body', message: `"splunk" is not an alert source; valid: ${VALID}` },
      ],
    });
    const hunt = await putRoutes({ routes: [sourceRoute(['hunt'])] });
    expect(hunt.statusCode).toBe(400);
    expect(hunt.json().issues[0].message).toBe(`"hunt" is not an alert source (hunt alerts skip the routes: set huntResponseAgentId); valid: ${VALID}`);
    const events = await putRoutes({ routes: [sourceRoute(['events'])] });
    expect(events.json().issues[0].message).toBe(`"events" is not an alert source (an events trigger's matches are alerts of the source \`detection\`); valid: ${VALID}`);
    expect((await t.app.inject({ url: '/api/alert-triage-routes', headers: admin })).json().routes).toEqual([]);
  });

  it('a route on `user` matches an alert created through the API, as docs/alerts.md says', async () => {
    const saved = await putRoutes({ routes: [sourceRoute(['user', 'webhook'])], defaultResponseAgentId: null });
    expect(saved.statusCode, saved.body).toBe(200);
    const created = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: admin, payload: { title: 'Reported by a script', severity: 'low' } });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().alert).toMatchObject({ createdBy: 'user', source: { category: 'user', name: 'api' }, assignedAgentId: agentId, routing: { outcome: 'route', routeName: 'By source' } });
  });

  it('simulate refuses an unknown source with 400 and the valid ones (hunt included); known ones answer', async () => {
    const res = await simulate({ severity: 'high', source: 'nonsense' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Validation failed',
      issues: [{ path: 'source', code: 'invalid_value', location: 'body', message: `"nonsense" is not an alert source; valid: ${VALID}, hunt` }],
    });
    const ok = await simulate({ severity: 'high', source: 'user' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ outcome: 'route', routeName: 'By source', responseAgentId: agentId });
    const tried = await simulate({ severity: 'high', source: 'detection', routes: [sourceRoute(['splunk'])] });
    expect(tried.statusCode).toBe(400);
    expect(tried.json().issues[0]).toMatchObject({ path: 'routes.0.conditions.0.sources.0', code: 'invalid_value' });
  });

  it('a route saved before the check, naming an unknown source, is still shown as saved and never matches', async () => {
    const stale = { id: '0190f0c4-7a3e-7b7e-9a55-3c1d2e4f5a6b', name: 'Old Splunk route', enabled: true, conditions: [{ type: 'source', sources: ['splunk'] }], responseAgentId: agentId };
    await t.database.db.updateTable('alertRouting').set({ routes: JSON.stringify([stale]) }).where('organizationId', '=', t.orgA.organization.id).execute();
    const view = await t.app.inject({ url: '/api/alert-triage-routes', headers: admin });
    expect(view.statusCode, view.body).toBe(200);
    expect(view.json().routes).toEqual([{ ...stale, action: 'triage', responseAgentName: 'API alert triage' }]);
    expect((await simulate({ severity: 'high', source: 'detection' })).json()).toMatchObject({ outcome: 'unassigned' });
    // Saving it again as it is: refused, naming the stale value, so it gets fixed.
    expect((await putRoutes({ routes: [stale] })).json().issues).toEqual([expect.objectContaining({ path: 'routes.0.conditions.0.sources.0', code: 'invalid_value' })]);
  });

  it('403 with missingPerms for a key without alert.manage; 401 without a key', async () => {
    const reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['alert.read']);
    const res = await putRoutes({ routes: [sourceRoute(['splunk'])] }, bearer(reader.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['alert.manage'] });
    expect((await simulate({ source: 'nonsense' }, {})).statusCode).toBe(401);
  });
});
