import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/modules/organizations/organizations.service.js';
import { migrateToLatest } from '../../src/migrations.js';
import { createEmptyDatabase } from '../support/db.js';
import { migrateTo, migrationBefore } from '../support/migrate.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';

/** Agent versions (issue 30 §3): every change appends one; list, get, diff, restore; runs record theirs. */
let t: TestContext;
let admin: Record<string, string>;
let reader: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read']);
});
afterAll(() => t.close());

const v1 = { name: 'Cloud triage', systemPrompt: 'You triage cloud alerts.\nCheck the account.\nAnswer with a verdict.', toolNames: ['lookup_indicator'], maxSteps: 5 };
const v2 = { ...v1, systemPrompt: 'You triage cloud alerts.\nCheck the account and the region.\nAnswer with a verdict.' };

async function createAgent(body: object = v1): Promise<{ id: string; version: number }> {
  const res = await t.app.inject({ method: 'POST', url: '/api/agents', headers: admin, payload: body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const put = (id: string, body: object) => t.app.inject({ method: 'PUT', url: `/api/agents/${id}`, headers: admin, payload: body });
const get = (url: string, headers = admin) => t.app.inject({ url, headers });

describe('agent versions', () => {
  it('appends a version per change, none for a replace that changes nothing, and restores one as a new version', async () => {
    const agent = await createAgent();
    expect(agent.version).toBe(1);

    const edited = await put(agent.id, v2);
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().version).toBe(2);
    const same = await put(agent.id, v2);
    expect(same.json().version).toBe(2);
    expect((await get(`/api/agents/${agent.id}`)).json().version).toBe(2);

    const list = await get(`/api/agents/${agent.id}/versions`, bearer(reader.key));
    expect(list.statusCode).toBe(200);
    expect(list.json().totalCount).toBe(2);
    expect(list.json().versions).toEqual([
      { agentId: agent.id, version: 2, source: 'api', sourceRef: null, restoredFrom: null, createdAt: expect.any(String), createdBy: { type: 'user', userId: t.orgA.user.id, apiKeyId: t.orgA.apiKey.id } },
      expect.objectContaining({ version: 1, source: 'api' }),
    ]);

    const one = await get(`/api/agents/${agent.id}/versions/1`);
    expect(one.statusCode).toBe(200);
    expect(one.json().snapshot).toEqual({
      id: agent.id,
      ...v1,
      description: '',
      agentType: 'response',
      modelAlias: 'default',
      inputs: [],
      structuredOutputSchema: null,
      outputDestinationIds: [],
      maxDurationMs: 300000,
      acceptanceCriteria: [],
      notifyCriteriaFailed: false,
      toolPolicies: {},
      approvalSettings: { expiresAfterSeconds: 3600, approverRoleIds: [], approverUserIds: [], requireSecondPerson: false },
      triggers: [],
    });

    const diff = await get(`/api/agents/${agent.id}/versions/2/diff`);
    expect(diff.statusCode).toBe(200);
    expect(diff.json()).toEqual({
      agentId: agent.id,
      version: 2,
      against: 1,
      changes: [
        {
          field: 'systemPrompt',
          before: v1.systemPrompt,
          after: v2.systemPrompt,
          lines: [
            { op: 'unchanged', text: 'You triage cloud alerts.' },
            { op: 'removed', text: 'Check the account.' },
            { op: 'added', text: 'Check the account and the region.' },
            { op: 'unchanged', text: 'Answer with a verdict.' },
          ],
        },
      ],
    });
    const back = await get(`/api/agents/${agent.id}/versions/1/diff?against=2`);
    expect(back.json().changes.map((c: { field: string; after: unknown }) => [c.field, c.after])).toEqual([['systemPrompt', v1.systemPrompt]]);
    const first = await get(`/api/agents/${agent.id}/versions/1/diff`);
    expect(first.json()).toMatchObject({ version: 1, against: 0 });
    expect(first.json().changes[0]).toEqual({ field: 'name', before: null, after: v1.name });

    const restored = await t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/versions/1/restore`, headers: admin });
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json()).toMatchObject({ ...v1, version: 3 });
    const v3 = (await get(`/api/agents/${agent.id}/versions/3`)).json();
    expect(v3).toMatchObject({ version: 3, source: 'restore', restoredFrom: 1 });
    expect(v3.snapshot).toEqual(one.json().snapshot);
    expect((await get(`/api/agents/${agent.id}/versions/3/diff?against=1`)).json().changes).toEqual([]);
    // Restoring what the agent already is appends nothing.
    const again = await t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/versions/3/restore`, headers: admin });
    expect(again.json().version).toBe(3);

    const audit = await t.database.db.selectFrom('auditLogs').select(['action', 'metadata']).where('resourceId', '=', agent.id).where('action', '=', 'agent.restore').orderBy('createdAt').execute();
    expect(audit[0]).toEqual({ action: 'agent.restore', metadata: { name: v1.name, version: 3, restoredFrom: 1 } });
  });

  it('pages newest first with limit and offset', async () => {
    const agent = await createAgent();
    for (const n of [2, 3, 4]) expect((await put(agent.id, { ...v1, maxSteps: n })).json().version).toBe(n);
    const page = await get(`/api/agents/${agent.id}/versions?limit=2&offset=1`);
    expect(page.json().totalCount).toBe(4);
    expect(page.json().versions.map((v: { version: number }) => v.version)).toEqual([3, 2]);
    expect((await get(`/api/agents/${agent.id}/versions/4/diff?against=2`)).json().changes).toEqual([{ field: 'maxSteps', before: 2, after: 4 }]);
  });

  it('records a change made in the console as `console`', async () => {
    const agent = await createAgent();
    const session = await t.app.inject({ method: 'POST', url: '/api/session', payload: { apiKey: t.orgA.apiKey.key } });
    expect(session.statusCode).toBe(200);
    const headers = { cookie: String(session.headers['set-cookie']).split(';')[0]!, 'x-csrf-token': session.json().csrfToken };
    const edited = await t.app.inject({ method: 'PUT', url: `/api/agents/${agent.id}`, headers, payload: v2 });
    expect(edited.json().version).toBe(2);
    const list = (await get(`/api/agents/${agent.id}/versions`)).json();
    expect(list.versions.map((v: { source: string; createdBy: object }) => [v.source, v.createdBy])).toEqual([
      ['console', { type: 'user', userId: t.orgA.user.id, apiKeyId: t.orgA.apiKey.id }],
      ['api', { type: 'user', userId: t.orgA.user.id, apiKeyId: t.orgA.apiKey.id }],
    ]);
  });

  it('records the triggers\' settings, without their secrets, and versions a trigger change', async () => {
    const agent = await createAgent();
    const fields = await get(`/api/agents/${agent.id}/trigger/webhook/fields`);
    expect(fields.statusCode, fields.body).toBe(200);
    const saved = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/trigger/save`,
      headers: admin,
      payload: { source: 'webhook', triggerId: fields.json().data.triggerId, name: 'GuardDuty', deliveryIdPointer: '/id' },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const latest = (await get(`/api/agents/${agent.id}/versions?limit=1`)).json().versions[0];
    const snapshot = (await get(`/api/agents/${agent.id}/versions/${latest.version}`)).json().snapshot;
    expect(snapshot.triggers).toEqual([expect.objectContaining({ id: fields.json().data.triggerId, name: 'GuardDuty', source: 'webhook', enabled: true, deliveryIdPointer: '/id' })]);
    expect(JSON.stringify(snapshot)).not.toContain(fields.json().data.secret);
    const diff = (await get(`/api/agents/${agent.id}/versions/${latest.version}/diff`)).json();
    expect(diff.changes.map((c: { field: string }) => c.field)).toEqual(['triggers']);

    const triggerUrl = `/api/agents/${agent.id}/trigger/${fields.json().data.triggerId}`;
    const versionNow = async () => (await get(`/api/agents/${agent.id}`)).json().version as number;
    const rotated = await t.app.inject({ method: 'POST', url: `${triggerUrl}/rotate-secret`, headers: admin });
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect(await versionNow()).toBe(latest.version); // secrets are not versioned
    const renamed = await t.app.inject({ method: 'PUT', url: triggerUrl, headers: admin, payload: { name: 'GuardDuty EU' } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(await versionNow()).toBe(latest.version + 1);
    const renameDiff = (await get(`/api/agents/${agent.id}/versions/${latest.version + 1}/diff`)).json().changes[0];
    expect(renameDiff.lines.filter((l: { op: string }) => l.op !== 'unchanged')).toEqual([
      { op: 'removed', text: '    "name": "GuardDuty",' },
      { op: 'added', text: '    "name": "GuardDuty EU",' },
    ]);
    expect((await t.app.inject({ method: 'DELETE', url: triggerUrl, headers: admin })).statusCode).toBe(200);
    expect(await versionNow()).toBe(latest.version + 2);
    expect((await get(`/api/agents/${agent.id}/versions/${latest.version + 2}`)).json().snapshot.triggers).toEqual([]);
  });

  it('answers 404, 403 and 400 with the usual bodies', async () => {
    const agent = await createAgent();
    expect((await get(`/api/agents/${agent.id}/versions/9`)).json()).toEqual({ error: 'Agent version not found' });
    expect((await get(`/api/agents/${agent.id}/versions/9`)).statusCode).toBe(404);
    expect((await get(`/api/agents/${agent.id}/versions/1/diff?against=7`)).json()).toEqual({ error: 'Agent version not found' });
    const restore9 = await t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/versions/9/restore`, headers: admin });
    expect([restore9.statusCode, restore9.json()]).toEqual([404, { error: 'Agent version not found' }]);

    const other = bearer(t.orgB.apiKey.key);
    for (const url of [`/api/agents/${agent.id}/versions`, `/api/agents/${agent.id}/versions/1`, `/api/agents/${agent.id}/versions/1/diff`]) {
      const res = await get(url, other);
      expect([res.statusCode, res.json()], url).toEqual([404, { error: 'Agent not found' }]);
    }
    const otherRestore = await t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/versions/1/restore`, headers: other });
    expect([otherRestore.statusCode, otherRestore.json()]).toEqual([404, { error: 'Agent not found' }]);

    const denied = await t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/versions/1/restore`, headers: bearer(reader.key) });
    expect([denied.statusCode, denied.json()]).toEqual([403, { error: 'Missing required permissions', missingPerms: ['agent.manage'] }]);
    const noRead = await userWithPermissions(t.database.db, t.orgA.organization.id, ['alert.read']);
    const deniedRead = await get(`/api/agents/${agent.id}/versions`, bearer(noRead.key));
    expect([deniedRead.statusCode, deniedRead.json()]).toEqual([403, { error: 'Missing required permissions', missingPerms: ['agent.read'] }]);

    for (const bad of ['0', 'abc', '1.5']) {
      const res = await get(`/api/agents/${agent.id}/versions/${bad}`);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json()).toMatchObject({ error: 'Validation failed', issues: [expect.objectContaining({ path: 'version', location: 'params' })] });
    }
    expect((await get(`/api/agents/${agent.id}/versions/abc`)).json()).toEqual({
      error: 'Validation failed',
      issues: [{ path: 'version', message: 'must be a version number', code: 'invalid_type', location: 'params' }],
    });
    const badAgainst = await get(`/api/agents/${agent.id}/versions/1/diff?against=-1`);
    expect(badAgainst.statusCode).toBe(400);
    expect(badAgainst.json().issues[0]).toMatchObject({ path: 'against', location: 'query' });
  });

  it('runs record the version current when they were queued', async () => {
    const agent = await createAgent();
    await put(agent.id, v2);
    const run = await t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/run-async`, headers: admin, payload: { input: 'x' } });
    expect(run.statusCode, run.body).toBe(200);
    const restored = await t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/versions/1/restore`, headers: admin });
    expect(restored.json().version).toBe(3);

    const detail = await get(`/api/agent-runs/${run.json().runId}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.json().agentVersion).toBe(2);
    const list = await get(`/api/agent-runs?agentId=${agent.id}`);
    expect(list.json().runs.map((r: { agentVersion: number }) => r.agentVersion)).toEqual([2]);
  });
});

describe('migration 0080', () => {
  it('gives existing agents version 1 with their triggers, and existing runs the version they execute', async () => {
    const h = await createEmptyDatabase();
    try {
      await migrateTo(h.db, migrationBefore('0080'));
      const created = await createOrganization(h.db, { name: 'Old', adminEmail: 'old@m.test' });
      const org = created.organization.id;
      const agent = '0190f000-0000-7000-8000-000000000001';
      await sql`INSERT INTO agents (id, organization_id, name, system_prompt, model_alias, tool_names, agent_type, output_destination_ids, max_steps, max_duration_ms, created_by, created_at, updated_at)
        VALUES (${agent}, ${org}, 'Old agent', 'Old prompt', 'default', '{lookup_indicator}', 'response', '{}', 3, 60000, ${created.user.id}, now(), '2026-11-01T00:00:00Z')`.execute(h.db);
      await sql`INSERT INTO agent_triggers (id, organization_id, agent_id, source, name, status, enabled, secret_ciphertext, cron_schedule, created_at, updated_at) VALUES
        ('0190f000-0000-7000-8000-000000000002', ${org}, ${agent}, 'cron', 'Hourly', 'active', true, null, '0 * * * *', now(), now()),
        ('0190f000-0000-7000-8000-000000000003', ${org}, ${agent}, 'webhook', '', 'draft', true, 'sealed', null, now(), now())`.execute(h.db);
      await sql`INSERT INTO agent_runs (id, organization_id, agent_id, status, mode, queued_at, updated_at, agent_snapshot) VALUES
        ('0190f000-0000-7000-8000-000000000004', ${org}, ${agent}, 'done', 'async', now(), now(), null),
        ('0190f000-0000-7000-8000-000000000005', ${org}, ${agent}, 'waiting', 'async', now(), now(), '{"systemPrompt": "Older prompt"}')`.execute(h.db);

      await migrateToLatest(h.db, h.pool);
      const versions = await h.db.selectFrom('agentVersions').selectAll().execute();
      expect(versions).toEqual([
        {
          organizationId: org,
          agentId: agent,
          version: 1,
          snapshot: {
            id: agent, name: 'Old agent', description: '', agentType: 'response', systemPrompt: 'Old prompt', modelAlias: 'default', toolNames: ['lookup_indicator'],
            inputs: [], structuredOutputSchema: null, outputDestinationIds: [], maxSteps: 3, maxDurationMs: 60000,
            // Added by migration 0090 with the columns' defaults (a version is the whole agent).
            acceptanceCriteria: [], notifyCriteriaFailed: false,
            triggers: [{ id: '0190f000-0000-7000-8000-000000000002', name: 'Hourly', source: 'cron', enabled: true, cronSchedule: '0 * * * *', input: null, createAlert: null, routeAlerts: false, alertMapping: null, inputMapping: null, deliveryIdPointer: null, additionalFields: {} }],
          },
          source: 'migration',
          sourceRef: null,
          restoredFrom: null,
          actorType: 'user',
          actorUserId: created.user.id,
          actorApiKeyId: null,
          createdAt: new Date('2026-11-01T00:00:00Z'),
        },
      ]);
      expect(await h.db.selectFrom('agents').select('version').execute()).toEqual([{ version: 1 }]);
      const runs = await h.db.selectFrom('agentRuns').select(['id', 'agentVersion']).orderBy('id').execute();
      expect(runs.map((r) => r.agentVersion)).toEqual([1, null]);
    } finally {
      await h.close();
    }
  });
});
