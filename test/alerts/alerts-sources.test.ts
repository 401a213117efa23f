import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';

/** Alerts created by triggers (per sender, from realistic payloads) and by code detection hits. */
let t: TestContext;
let admin: Record<string, string>;
let agentId: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  agentId = (await t.app.inject({ method: 'POST', url: '/api/agents', headers: admin, payload: { name: 'Intake triage', systemPrompt: 'Triage.' } })).json().id;
});
afterAll(() => t.close());

async function trigger(source: string, save: Record<string, unknown> = {}) {
  const { secret, webhookUrl } = (await t.app.inject({ url: `/api/agents/${agentId}/trigger/${source}/fields`, headers: admin })).json().data;
  const id = webhookUrl.split('/').pop();
  const saved = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: admin, payload: { triggerId: id, source, name: `${source} feed`, ...save } });
  expect(saved.statusCode, saved.body).toBe(200);
  return { id, secret, path: `/api/trigger/${source}/${id}`, saved: saved.json() };
}

async function deliver(tr: { path: string; secret: string }, body: unknown) {
  const res = await t.app.inject({ method: 'POST', url: tr.path, headers: { 'content-type': 'application/json', 'x-rampart-secret': tr.secret }, payload: JSON.stringify(body) });
  expect(res.statusCode, res.body).toBe(200);
  const runId = res.json().executionId as string;
  return (await t.app.inject({ url: `/api/agent-runs/${runId}/alert`, headers: admin })).json().alert as Record<string, any> | null;
}

const JIRA = {
  webhookEvent: 'jira:issue_created',
  issue: {
    id: '10042',
    key: 'SEC-17',
    self: 'https://acme.atlassian.net/rest/api/2/issue/10042',
    fields: { summary: 'Phishing email reported by finance', description: 'User forwarded a suspicious invoice email.', priority: { name: 'Highest' } },
  },
};
const LINEAR = {
  action: 'create',
  type: 'Issue',
  data: { id: '2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9', identifier: 'SEC-204', title: 'Leaked AWS key in repo', description: 'GitGuardian found a key.', priority: 2, url: 'https://linear.app/acme/issue/SEC-204' },
  url: 'https://linear.app/acme/issue/SEC-204',
};
const HACKERONE = {
  data: {
    activity: { type: 'activity-report-created' },
    report: {
      id: '2310458',
      type: 'report',
      attributes: { title: 'IDOR on /api/invoices', vulnerability_information: 'Changing the id returns other tenants’ invoices.', state: 'new' },
      relationships: { severity: { data: { type: 'severity', attributes: { rating: 'high' } } } },
    },
  },
};
const GUARDDUTY = {
  version: '0',
  id: 'cd2d702e-ab31-411b-9344-793ce56b1bc7',
  'detail-type': 'GuardDuty Finding',
  source: 'aws.guardduty',
  account: '123456789012',
  region: 'eu-west-1',
  detail: {
    id: '16afba5c5c43e07c9e3e5e2e544e95df',
    type: 'UnauthorizedAccess:EC2/SSHBruteForce',
    title: '203.0.113.9 is performing SSH brute force attacks against i-99999999.',
    description: '203.0.113.9 is performing SSH brute force attacks against i-99999999. Brute force attacks are used to gain unauthorized access.',
    severity: 8,
    account_id: '123456789012',
  },
};

describe('alerts created by triggers', () => {
  it('Jira: title, description, severity from priority, issue key and browse URL, dedupe by key; the trigger run triages it', async () => {
    const tr = await trigger('jira');
    expect(tr.saved.createAlert).toBe(true);
    const alert = await deliver(tr, JIRA);
    expect(alert).toMatchObject({
      title: 'Phishing email reported by finance',
      description: 'User forwarded a suspicious invoice email.',
      severity: 'critical',
      externalProvider: 'jira',
      externalRef: 'SEC-17',
      externalUrl: 'https://acme.atlassian.net/browse/SEC-17',
      dedupeKey: 'jira:SEC-17',
      createdBy: 'trigger',
      source: { category: 'trigger', name: 'jira feed', triggerType: 'jira' },
      triggerSource: 'jira',
      assignedAgentId: agentId,
      originTriggerId: tr.id,
      status: 'in_progress',
      routing: { outcome: 'trigger' },
    });
    expect(alert!.triageRunId).toBe(alert!.originRunId);
    // A duplicate signal is counted on the open alert and starts no second run (no new triage).
    const runsBefore = (await t.app.inject({ url: `/api/agent-runs?agentId=${agentId}`, headers: admin })).json().totalCount;
    const res = await t.app.inject({ method: 'POST', url: tr.path, headers: { 'content-type': 'application/json', 'x-rampart-secret': tr.secret }, payload: JSON.stringify({ ...JIRA, webhookEvent: 'jira:issue_updated' }) });
    expect(res.json()).toEqual({ skipped: true, message: `Duplicate of ${alert!.displayId} (dedupe key jira:SEC-17): counted on that alert, no new run`, executionId: alert!.triageRunId });
    expect((await t.app.inject({ url: `/api/agent-runs?agentId=${agentId}`, headers: admin })).json().totalCount).toBe(runsBefore);
    const again = (await t.app.inject({ url: `/api/alerts/${alert!.id}`, headers: admin })).json().alert;
    expect(again).toMatchObject({ id: alert!.id, duplicateCount: 2 });
  });

  it('Linear and HackerOne from their documented webhook bodies, payload kept as received', async () => {
    const linear = await deliver(await trigger('linear', { signingSecret: undefined }), LINEAR);
    expect(linear).toMatchObject({ title: 'Leaked AWS key in repo', severity: 'high', externalProvider: 'linear', externalRef: 'SEC-204', externalUrl: 'https://linear.app/acme/issue/SEC-204' });
    const h1 = await deliver(await trigger('hackerone'), HACKERONE);
    expect(h1).toMatchObject({ title: 'IDOR on /api/invoices', severity: 'high', externalProvider: 'hackerone', externalRef: '2310458', externalUrl: 'https://hackerone.com/reports/2310458' });
    const full = (await t.app.inject({ url: `/api/alerts/${h1!.displayId}`, headers: admin })).json();
    expect(full.alert.payload).toEqual(HACKERONE);
  });

  it('generic webhook: a GuardDuty finding; a field mapping of JSON pointers wins', async () => {
    const gd = await deliver(await trigger('webhook'), GUARDDUTY);
    expect(gd).toMatchObject({ title: GUARDDUTY.detail.title, severity: 'high', externalProvider: 'aws-guardduty', externalRef: GUARDDUTY.detail.id, dedupeKey: `guardduty:${GUARDDUTY.detail.id}` });
    const mapped = await trigger('webhook', { alertMapping: { title: '/detail/type', severity: '/detail/sev', dedupeKey: '/detail/account_id' } });
    const alert = await deliver(mapped, { detail: { type: 'Recon:IAMUser/MaliciousIPCaller', sev: 'low', account_id: '42' } });
    expect(alert).toMatchObject({ title: 'Recon:IAMUser/MaliciousIPCaller', severity: 'low', dedupeKey: 'webhook:42' });
    const bad = await t.app.inject({ method: 'PUT', url: `/api/agents/${agentId}/trigger/${mapped.id}`, headers: admin, payload: { alertMapping: { title: 'detail.type' } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues[0].path).toBe('alertMapping.title');
  });

  it('createAlert false, and Slack (off by default), create no alert', async () => {
    const off = await trigger('webhook', { createAlert: false });
    expect(off.saved.createAlert).toBe(false);
    expect(await deliver(off, GUARDDUTY)).toBeNull();
    const slack = await trigger('slack');
    expect(slack.saved.createAlert).toBe(false);
  });
});

describe('code detections', () => {
  it('CRUD, hits create or dedupe alerts with detection filled, routes can match them, 404 for another organization', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/code-detections',
      headers: admin,
      payload: { name: 'Okta MFA fatigue', ruleId: 'okta_mfa_push_spam', severity: 'high', logTable: { source: 'okta', stream: 'system_log' }, query: 'eventType:user.mfa.okta_verify.deny_push | count > 5' },
    });
    expect(created.statusCode, created.body).toBe(200);
    const det = created.json();
    const routes = await t.app.inject({ method: 'PUT', url: '/api/alert-triage-routes', headers: admin, payload: { routes: [{ name: 'Okta', enabled: true, conditions: [{ type: 'logTable', source: 'okta', stream: 'system_log' }, { type: 'codeDetection', codeDetectionIds: [det.id] }], responseAgentId: agentId }] } });
    expect(routes.statusCode, routes.body).toBe(200);
    expect(routes.json().logTableOptions).toEqual([{ source: 'okta', sourceDisplayName: 'okta', toolId: 'code_detection', stream: 'system_log', streamLabel: 'system_log' }]);

    const hit = await t.app.inject({ method: 'POST', url: `/api/code-detections/${det.id}/hits`, headers: admin, payload: { payload: { actor: 'j.doe@acme.test', denies: 9 }, dedupeKey: 'j.doe' } });
    expect(hit.statusCode, hit.body).toBe(200);
    expect(hit.json()).toMatchObject({
      created: true,
      alert: { title: 'Okta MFA fatigue', severity: 'high', source: { category: 'detection', name: 'Okta MFA fatigue' }, codeDetectionId: det.id, detection: { codeDetectionId: det.id, ruleId: 'okta_mfa_push_spam', name: 'Okta MFA fatigue' }, assignedAgentId: agentId, routing: { outcome: 'route', routeName: 'Okta' } },
    });
    expect(hit.json().alert.originCodeDetectionHitId).toBeTruthy();
    const dup = await t.app.inject({ method: 'POST', url: `/api/code-detections/${det.id}/hits`, headers: admin, payload: { payload: { denies: 12 }, dedupeKey: 'j.doe' } });
    expect(dup.json()).toMatchObject({ created: false, alert: { id: hit.json().alert.id, duplicateCount: 2 } });

    const inUse = await t.app.inject({ method: 'DELETE', url: `/api/code-detections/${det.id}`, headers: admin });
    expect(inUse.statusCode).toBe(409);
    expect(inUse.json()).toEqual({ error: 'Code detection is used by triage route(s) "Okta"; remove it from them first' });

    const otherOrg = bearer(t.orgB.apiKey.key);
    expect((await t.app.inject({ url: `/api/code-detections/${det.id}`, headers: otherOrg })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: `/api/code-detections/${det.id}/hits`, headers: otherOrg, payload: { payload: {} } })).json()).toEqual({ error: 'Code detection not found' });
    const reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['alert.read']);
    const denied = await t.app.inject({ method: 'POST', url: '/api/code-detections', headers: bearer(reader.key), payload: { name: 'x' } });
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['alert.manage'] });
    const list = await t.app.inject({ url: '/api/code-detections', headers: bearer(reader.key) });
    expect(list.json().totalCount).toBe(1);

    await t.app.inject({ method: 'PUT', url: '/api/alert-triage-routes', headers: admin, payload: { routes: [] } });
    expect((await t.app.inject({ method: 'DELETE', url: `/api/code-detections/${det.id}`, headers: admin })).json()).toEqual({ success: true });
  });
});
