import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';

/**
 * Issue 47 items 4 and 5, as a team that keeps its agents in a repository: every field that
 * changes what a run does or how it is judged is versioned and restored; restoring an agent
 * managed by code says which document to paste, or with force=true marks the agent as drifted.
 */
let t: TestContext;
let admin: Record<string, string>;
let reader: TestUser;
let writerWithoutManage: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read']);
  writerWithoutManage = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read', 'agent.create']);
});
afterAll(() => t.close());

const doc = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'rampart/v1', kind: 'Agent', metadata: { name }, spec });
const apply = (documents: unknown[]) => t.app.inject({ method: 'POST', url: '/api/config/apply', headers: admin, payload: { documents, source: 'c0ffee1' } });
const agentByName = async (name: string) => {
  const list = (await t.app.inject({ url: '/api/agents?limit=200', headers: admin })).json().agents as Array<{ id: string; name: string }>;
  return list.find((a) => a.name === name)!.id;
};

describe('agent versions: judged fields and code-managed agents', () => {
  it('versions acceptance criteria, their notification and tool policies, diffs and restores them', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/api/agents', headers: admin, payload: { name: 'Judged triage', systemPrompt: 'Triage.', toolNames: ['lookup_indicator'] } });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().id as string;
    const edited = await t.app.inject({
      method: 'PUT', url: `/api/agents/${id}`, headers: admin,
      payload: { name: 'Judged triage', systemPrompt: 'Triage.', toolNames: ['lookup_indicator'], acceptanceCriteria: ['Names the account'], notifyCriteriaFailed: true, toolPolicies: { lookup_indicator: 'approve' } },
    });
    expect(edited.json().version).toBe(2);

    const v2 = (await t.app.inject({ url: `/api/agents/${id}/versions/2`, headers: bearer(reader.key) })).json();
    expect(v2.snapshot).toMatchObject({ acceptanceCriteria: ['Names the account'], notifyCriteriaFailed: true, toolPolicies: { lookup_indicator: 'approve' }, approvalSettings: expect.objectContaining({ requireSecondPerson: false }) });
    const v1 = (await t.app.inject({ url: `/api/agents/${id}/versions/1`, headers: admin })).json();
    expect(v1.snapshot).toMatchObject({ acceptanceCriteria: [], notifyCriteriaFailed: false, toolPolicies: {} });

    const diff = (await t.app.inject({ url: `/api/agents/${id}/versions/2/diff`, headers: admin })).json();
    expect(diff.changes.map((c: { field: string }) => c.field)).toEqual(['acceptanceCriteria', 'notifyCriteriaFailed', 'toolPolicies']);
    expect(diff.changes[1]).toEqual({ field: 'notifyCriteriaFailed', before: false, after: true });

    const restored = await t.app.inject({ method: 'POST', url: `/api/agents/${id}/versions/1/restore`, headers: admin });
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json()).toMatchObject({ version: 3, acceptanceCriteria: [], notifyCriteriaFailed: false, toolPolicies: {}, driftedFromCodeAt: null });
  });

  it('a code-managed agent: 409 pointing at the version document, which applied restores it; force=true marks the drift until the next apply', async () => {
    const first = doc('cloud-triage', { systemPrompt: 'You triage cloud findings.', acceptanceCriteria: ['Names the AWS account'], maxSteps: 5 });
    const second = doc('cloud-triage', { systemPrompt: 'You triage cloud findings and check the region.', acceptanceCriteria: ['Names the AWS account', 'Names the region'], notifyCriteriaFailed: true, maxSteps: 5 });
    expect((await apply([first])).statusCode).toBe(200);
    expect((await apply([second])).statusCode).toBe(200);
    const id = await agentByName('cloud-triage');
    expect((await t.app.inject({ url: `/api/agents/${id}`, headers: admin })).json()).toMatchObject({ version: 2, managedBy: 'code', driftedFromCodeAt: null });

    const refused = await t.app.inject({ method: 'POST', url: `/api/agents/${id}/versions/1/restore`, headers: admin });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      error: `Agent "cloud-triage" is managed by code (document Agent/cloud-triage from source c0ffee1): put version 1's document (GET /api/agents/${id}/versions/1/document) in its file and apply it, or pass force=true to restore it here anyway (the agent is then marked as drifted from code until the next apply)`,
    });

    // The document to paste: applying it makes the agent version 1 again, from code.
    const document = await t.app.inject({ url: `/api/agents/${id}/versions/1/document`, headers: bearer(reader.key) });
    expect(document.statusCode, document.body).toBe(200);
    expect(document.headers['content-type']).toContain('application/yaml');
    expect(document.body).toMatch(/^# Agent "cloud-triage" as version 1: put this document in its file and run `rampart apply`\n/);
    const pasted = parse(document.body);
    expect(pasted).toMatchObject({ apiVersion: 'rampart/v1', kind: 'Agent', metadata: { name: 'cloud-triage' }, spec: { systemPrompt: 'You triage cloud findings.', acceptanceCriteria: ['Names the AWS account'], notifyCriteriaFailed: false, maxSteps: 5 } });
    const planned = await t.app.inject({ method: 'POST', url: '/api/config/plan', headers: admin, payload: { documents: [pasted] } });
    expect(planned.json().changes.map((c: { diff: Record<string, unknown> }) => Object.keys(c.diff).sort())).toEqual([['acceptanceCriteria', 'notifyCriteriaFailed', 'systemPrompt']]);
    expect((await apply([pasted])).statusCode).toBe(200);
    expect((await t.app.inject({ url: `/api/agents/${id}`, headers: admin })).json()).toMatchObject({ version: 3, systemPrompt: 'You triage cloud findings.', managedBy: 'code', driftedFromCodeAt: null });

    // An emergency restore by hand: allowed with force, and visible as drift (like a forced PUT).
    const forced = await t.app.inject({ method: 'POST', url: `/api/agents/${id}/versions/2/restore?force=true`, headers: admin });
    expect(forced.statusCode, forced.body).toBe(200);
    expect(forced.json()).toMatchObject({ version: 4, systemPrompt: 'You triage cloud findings and check the region.', managedBy: 'code', driftedFromCodeAt: expect.any(String) });
    const versions = (await t.app.inject({ url: `/api/agents/${id}/versions?limit=1`, headers: admin })).json();
    expect(versions.versions[0]).toMatchObject({ version: 4, source: 'restore', restoredFrom: 2 });
    // The next plan shows the drift, and the apply puts the file back and clears the mark.
    const drift = await t.app.inject({ method: 'POST', url: '/api/config/plan', headers: admin, payload: { documents: [pasted] } });
    expect(drift.json().changes).toHaveLength(1);
    expect((await apply([pasted])).statusCode).toBe(200);
    expect((await t.app.inject({ url: `/api/agents/${id}`, headers: admin })).json()).toMatchObject({ version: 5, driftedFromCodeAt: null });

    // A forced replace marks it too.
    const put = await t.app.inject({ method: 'PUT', url: `/api/agents/${id}?force=true`, headers: admin, payload: { name: 'cloud-triage', systemPrompt: 'Hot fix.', maxSteps: 5 } });
    expect(put.json().driftedFromCodeAt).toEqual(expect.any(String));
  });

  it('refuses the document and the restore without their permissions, another organization\'s agent, and bad versions', async () => {
    const id = (await t.app.inject({ method: 'POST', url: '/api/agents', headers: admin, payload: { name: 'Perm probe', systemPrompt: 'x' } })).json().id as string;
    const noRead = await userWithPermissions(t.database.db, t.orgA.organization.id, ['alert.read']);
    const denied = await t.app.inject({ url: `/api/agents/${id}/versions/1/document`, headers: bearer(noRead.key) });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.read'] });
    const restoreDenied = await t.app.inject({ method: 'POST', url: `/api/agents/${id}/versions/1/restore?force=true`, headers: bearer(writerWithoutManage.key) });
    expect(restoreDenied.statusCode).toBe(403);
    expect(restoreDenied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.manage'] });
    const other = await t.app.inject({ url: `/api/agents/${id}/versions/1/document`, headers: bearer(t.orgB.apiKey.key) });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ error: 'Agent not found' });
    const missing = await t.app.inject({ url: `/api/agents/${id}/versions/9/document`, headers: admin });
    expect(missing.json()).toEqual({ error: 'Agent version not found' });
    const bad = await t.app.inject({ url: `/api/agents/${id}/versions/0/document`, headers: admin });
    expect(bad.statusCode).toBe(400);
    const badForce = await t.app.inject({ method: 'POST', url: `/api/agents/${id}/versions/1/restore?force=yes`, headers: admin });
    expect(badForce.statusCode).toBe(400);
  });
});
