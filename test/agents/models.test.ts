import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';

let t: TestContext;
let admin: Record<string, string>;
let reader: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read']);
});
afterAll(() => t.close());

const post = (payload: object, headers = admin) => t.app.inject({ method: 'POST', url: '/api/model-providers', headers, payload });

describe('model providers', () => {
  it('creates, never echoes the key, stores it encrypted', async () => {
    const res = await post({ name: 'openai', type: 'openai', apiKey: 'sk-SECRET-provider-key' });
    expect(res.statusCode).toBe(200);
    const p = res.json();
    expect(p).toMatchObject({ name: 'openai', type: 'openai', baseUrl: null, hasApiKey: true });
    expect(res.body).not.toContain('sk-SECRET');
    const list = await t.app.inject({ url: '/api/model-providers', headers: bearer(reader.key) });
    expect(list.json()).toEqual({ providers: [p] });
    const raw = await sql<{ row: string }>`SELECT model_providers::text AS row FROM model_providers`.execute(t.database.db);
    expect(raw.rows[0]!.row).not.toContain('sk-SECRET');
    const audit = await t.database.db.selectFrom('auditLogs').select('metadata').where('resourceId', '=', p.id).execute();
    expect(JSON.stringify(audit)).not.toContain('sk-SECRET');
  });

  it('validates: type, base URL required for openai-compatible, URL scheme, unknown fields', async () => {
    const res = await post({ name: 'Bad Name', type: 'cohere', baseUrl: 'ftp://x', extra: 1 });
    expect(res.statusCode).toBe(400);
    expect(res.json().issues.map((i: { path: string }) => i.path).sort()).toEqual(['baseUrl', 'extra', 'name', 'type']);
    const compat = await post({ name: 'ollama', type: 'openai-compatible' });
    expect(compat.statusCode).toBe(400);
    expect(compat.json().issues).toEqual([expect.objectContaining({ path: 'baseUrl', message: 'is required for an openai-compatible provider' })]);
  });

  it('answers 409 for a duplicate name, keeps or clears the key on PUT, deletes', async () => {
    const a = (await post({ name: 'dup', type: 'anthropic', apiKey: 'k1' })).json();
    const dup = await post({ name: 'dup', type: 'anthropic' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({ error: 'A model provider named "dup" already exists' });
    const kept = await t.app.inject({ method: 'PUT', url: `/api/model-providers/${a.id}`, headers: admin, payload: { name: 'dup', type: 'anthropic', baseUrl: 'https://api.anthropic.com/v1/' } });
    expect(kept.json()).toMatchObject({ hasApiKey: true, baseUrl: 'https://api.anthropic.com/v1/' });
    const cleared = await t.app.inject({ method: 'PUT', url: `/api/model-providers/${a.id}`, headers: admin, payload: { name: 'dup', type: 'anthropic', apiKey: null } });
    expect(cleared.json()).toMatchObject({ hasApiKey: false });
    const del = await t.app.inject({ method: 'DELETE', url: `/api/model-providers/${a.id}`, headers: admin });
    expect(del.json()).toEqual({ success: true });
    expect((await t.app.inject({ url: `/api/model-providers/${a.id}`, headers: admin })).statusCode).toBe(404);
  });

  it('hides other organizations\' providers and checks permissions', async () => {
    const p = (await post({ name: 'mine', type: 'openai' })).json();
    const other = await t.app.inject({ url: `/api/model-providers/${p.id}`, headers: bearer(t.orgB.apiKey.key) });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ error: 'Model provider not found' });
    const denied = await post({ name: 'x', type: 'openai' }, bearer(reader.key));
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.manage'] });
  });
});

describe('model aliases', () => {
  it('points an alias at a provider model, replaces it, lists, deletes', async () => {
    const p = (await post({ name: 'aliased', type: 'openai' })).json();
    const put = await t.app.inject({ method: 'PUT', url: '/api/model-aliases/fast', headers: admin, payload: { providerId: p.id, modelId: 'gpt-4o-mini' } });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ alias: 'fast', providerId: p.id, providerName: 'aliased', providerType: 'openai', modelId: 'gpt-4o-mini' });
    await t.app.inject({ method: 'PUT', url: '/api/model-aliases/fast', headers: admin, payload: { providerId: p.id, modelId: 'gpt-4.1' } });
    const list = await t.app.inject({ url: '/api/model-aliases', headers: bearer(reader.key) });
    expect(list.json().aliases).toEqual([expect.objectContaining({ alias: 'fast', modelId: 'gpt-4.1' })]);
    const del = await t.app.inject({ method: 'DELETE', url: '/api/model-aliases/fast', headers: admin });
    expect(del.json()).toEqual({ success: true });
    const again = await t.app.inject({ method: 'DELETE', url: '/api/model-aliases/fast', headers: admin });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: 'Model alias not found' });
  });

  it('rejects a provider of another organization and a bad alias name', async () => {
    const theirs = (await post({ name: 'theirs', type: 'openai' }, bearer(t.orgB.apiKey.key))).json();
    const res = await t.app.inject({ method: 'PUT', url: '/api/model-aliases/default', headers: admin, payload: { providerId: theirs.id, modelId: 'm' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().issues).toEqual([expect.objectContaining({ path: 'providerId', message: `no model provider ${theirs.id}` })]);
    const bad = await t.app.inject({ method: 'PUT', url: '/api/model-aliases/Bad%20Alias', headers: admin, payload: { providerId: theirs.id, modelId: 'm' } });
    expect(bad.statusCode).toBe(400);
  });
});
