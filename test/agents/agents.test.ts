import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';

let t: TestContext;
let admin: Record<string, string>;
let reader: TestUser;
let creator: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read']);
  creator = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read', 'agent.create']);
});
afterAll(() => t.close());

const minimal = { name: 'Phishing triage', systemPrompt: 'You triage reported phishing emails.' };

async function create(body: unknown, headers = admin) {
  return t.app.inject({ method: 'POST', url: '/api/agents', headers, payload: body as object });
}

describe('agents CRUD', () => {
  it('creates with defaults and reads it back', async () => {
    const res = await create(minimal, bearer(creator.key));
    expect(res.statusCode).toBe(200);
    const agent = res.json();
    expect(agent).toMatchObject({
      ...minimal,
      organizationId: t.orgA.organization.id,
      description: '',
      modelAlias: 'default',
      toolNames: [],
      inputs: [],
      structuredOutputSchema: null,
      agentType: 'response',
      outputDestinationIds: [],
      maxSteps: 10,
      maxDurationMs: 300000,
    });
    expect(agent.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const got = await t.app.inject({ url: `/api/agents/${agent.id}`, headers: bearer(reader.key) });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(agent);
  });

  it('stores every field, validates references, lists with totalCount', async () => {
    const dest = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: admin, payload: { type: 'teams', name: 'T', config: { url: 'https://example.com/hook' } } });
    const full = {
      name: 'Detector',
      description: 'Finds things',
      systemPrompt: 'Hunt.',
      modelAlias: 'fast',
      toolNames: ['search_intel_items', 'http_request'],
      inputs: [{ name: 'alert', description: 'The alert', type: 'object', required: true }],
      structuredOutputSchema: { type: 'object', properties: { verdict: { type: 'string' } }, required: ['verdict'] },
      agentType: 'detection',
      outputDestinationIds: [dest.json().id],
      maxSteps: 4,
      maxDurationMs: 60000,
    };
    const res = await create(full);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject(full);
    const list = await t.app.inject({ url: '/api/agents?limit=1&offset=0', headers: admin });
    expect(list.statusCode).toBe(200);
    expect(list.json().totalCount).toBeGreaterThanOrEqual(2);
    expect(list.json().agents).toHaveLength(1);
  });

  it('rejects bad input with one issue per field', async () => {
    const res = await create({ name: '', systemPrompt: 'x', toolNames: ['rm_rf'], agentType: 'chat', maxSteps: 0, structuredOutputSchema: { type: 'string' } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error).toBe('Validation failed');
    const paths = body.issues.map((i: { path: string }) => i.path).sort();
    expect(paths).toEqual(['agentType', 'maxSteps', 'name', 'structuredOutputSchema', 'toolNames.0']);
  });

  it('rejects unknown references: a destination of another organization, an unregistered MCP server', async () => {
    const destB = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: bearer(t.orgB.apiKey.key), payload: { type: 'teams', name: 'B', config: { url: 'https://example.com/b' } } });
    const res = await create({ ...minimal, outputDestinationIds: [destB.json().id], toolNames: ['mcp:nowhere/lookup'] });
    expect(res.statusCode).toBe(400);
    expect(res.json().issues.map((i: { path: string }) => i.path)).toEqual(['outputDestinationIds.0', 'toolNames.0']);
  });

  it('updates (PUT replaces) and deletes', async () => {
    const id = (await create(minimal)).json().id;
    const put = await t.app.inject({ method: 'PUT', url: `/api/agents/${id}`, headers: admin, payload: { ...minimal, name: 'Renamed', maxSteps: 3 } });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ id, name: 'Renamed', maxSteps: 3 });
    const del = await t.app.inject({ method: 'DELETE', url: `/api/agents/${id}`, headers: admin });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ success: true });
    const gone = await t.app.inject({ url: `/api/agents/${id}`, headers: admin });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({ error: 'Agent not found' });
    const audit = await t.database.db.selectFrom('auditLogs').select('action').where('resourceId', '=', id).orderBy('createdAt').execute();
    expect(audit.map((a) => a.action)).toEqual(['agent.create', 'agent.update', 'agent.delete']);
  });

  it('hides another organization\'s agents (404) and checks permissions (403 missingPerms)', async () => {
    const id = (await create(minimal)).json().id;
    for (const [method, url] of [['GET', `/api/agents/${id}`], ['PUT', `/api/agents/${id}`], ['DELETE', `/api/agents/${id}`]] as const) {
      const res = await t.app.inject({ method, url, headers: bearer(t.orgB.apiKey.key), ...(method === 'PUT' ? { payload: minimal } : {}) });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Agent not found' });
    }
    const denied = await create(minimal, bearer(reader.key));
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.create'] });
    const put = await t.app.inject({ method: 'PUT', url: `/api/agents/${id}`, headers: bearer(creator.key), payload: minimal });
    expect(put.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.manage'] });
    const bad = await t.app.inject({ url: '/api/agents/not-a-uuid', headers: admin });
    expect(bad.statusCode).toBe(400);
  });
});
