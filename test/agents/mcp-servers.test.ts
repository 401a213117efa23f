import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';
import { startFakeMcp, type FakeMcp } from '../support/fakes/mcp-server.js';

let t: TestContext;
let admin: Record<string, string>;
let reader: TestUser;
let nobody: TestUser;
let mcp: FakeMcp;
let closedPortUrl: string;

const TOKEN = 'mcp-SECRET-token-123';

beforeAll(async () => {
  // The fake MCP server listens on loopback: the outbound client must be allowed to reach it.
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  admin = bearer(t.orgA.apiKey.key);
  reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['tool.read']);
  nobody = await userWithPermissions(t.database.db, t.orgA.organization.id, []);
  mcp = await startFakeMcp({ token: TOKEN });
  // A port that was just free: connecting to it is refused.
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  closedPortUrl = `http://127.0.0.1:${(s.address() as AddressInfo).port}/mcp`;
  await new Promise<void>((r) => s.close(() => r()));
});
afterAll(async () => {
  await mcp?.close();
  await t?.close();
});

async function create(body: Record<string, unknown>, headers = admin) {
  return t.app.inject({ method: 'POST', url: '/api/mcp-servers', headers, payload: body });
}

async function createOk(body: Record<string, unknown>) {
  const res = await create(body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { id: string; name: string; hasToken: boolean; enabled: boolean; url: string };
}

async function insertAgent(organizationId: string, name: string, toolNames: string[]) {
  const now = new Date();
  await t.database.db
    .insertInto('agents')
    .values({ id: uuidv7(), organizationId, name, systemPrompt: 'x', modelAlias: 'default', toolNames, agentType: 'response', outputDestinationIds: [], maxSteps: 5, maxDurationMs: 60_000, createdAt: now, updatedAt: now })
    .execute();
}

describe('POST /api/mcp-servers', () => {
  it('registers a server; the token is write-only and encrypted at rest; audited', async () => {
    const res = await create({ name: 'inventory', url: mcp.url, token: TOKEN });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      id: expect.any(String),
      organizationId: t.orgA.organization.id,
      name: 'inventory',
      url: mcp.url,
      enabled: true,
      hasToken: true,
      managedBy: null,
      managedSource: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: expect.any(String),
    });
    expect(res.body).not.toContain(TOKEN);

    const row = await t.database.db.selectFrom('mcpServers').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(row.tokenCiphertext).toBeTruthy();
    expect(row.tokenCiphertext).not.toContain(TOKEN);
    expect(t.secrets.decrypt(row.tokenCiphertext!)).toBe(TOKEN);

    const audit = await t.database.db.selectFrom('auditLogs').selectAll().where('resourceId', '=', body.id).execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'mcpServer.create', resourceType: 'mcpServer', actorApiKeyId: t.orgA.apiKey.id });
    expect(JSON.stringify(audit[0]!.metadata)).not.toContain(TOKEN);
  });

  it('creates disabled servers and servers without a token', async () => {
    const body = await createOk({ name: 'no-token_1', url: 'https://mcp.example.com/mcp', enabled: false });
    expect(body).toMatchObject({ enabled: false, hasToken: false });
  });

  it('answers 409 for a name already taken in the organization, not across organizations', async () => {
    await createOk({ name: 'dup', url: 'https://a.example.com/mcp' });
    const res = await create({ name: 'dup', url: 'https://b.example.com/mcp' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'An MCP server named "dup" already exists' });
    expect((await create({ name: 'dup', url: 'https://b.example.com/mcp' }, bearer(t.orgB.apiKey.key))).statusCode).toBe(200);
  });

  it('answers 400 naming each bad field', async () => {
    const res = await create({ name: 'Bad Name', url: 'ftp://x.example.com', token: '', enabled: 'yes', extra: 1 });
    expect(res.statusCode).toBe(400);
    const issues = (res.json() as { issues: Array<{ path: string }> }).issues.map((i) => i.path).sort();
    expect(issues).toEqual(expect.arrayContaining(['name', 'url', 'token', 'enabled']));
    expect(res.json().error).toBe('Validation failed');

    const creds = await create({ name: 'creds', url: 'https://user:pw@mcp.example.com/mcp' });
    expect(creds.statusCode).toBe(400);
    expect(creds.json().issues[0]).toMatchObject({ path: 'url', message: expect.stringContaining('token') });
    expect((await create({ url: 'https://mcp.example.com' })).statusCode).toBe(400);
  });

  it('answers 403 naming tool.manage to a reader, 401 without a key', async () => {
    const res = await create({ name: 'nope', url: 'https://mcp.example.com/mcp' }, bearer(reader.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: expect.any(String), missingPerms: ['tool.manage'] });
    expect((await t.app.inject({ method: 'POST', url: '/api/mcp-servers', payload: { name: 'x', url: 'https://x.example.com' } })).statusCode).toBe(401);
  });
});

describe('GET /api/mcp-servers', () => {
  it('lists the organization\'s servers by name, without tokens, for tool.read', async () => {
    const res = await t.app.inject({ url: '/api/mcp-servers', headers: bearer(reader.key) });
    expect(res.statusCode).toBe(200);
    const { mcpServers } = res.json() as { mcpServers: Array<{ name: string; organizationId: string }> };
    expect(mcpServers.map((s) => s.name)).toEqual([...mcpServers.map((s) => s.name)].sort());
    expect(mcpServers.map((s) => s.name)).toEqual(expect.arrayContaining(['inventory', 'dup', 'no-token_1']));
    expect(mcpServers.every((s) => s.organizationId === t.orgA.organization.id)).toBe(true);
    expect(res.body).not.toContain(TOKEN);
    expect(res.body).not.toContain('token"');
  });

  it('answers 403 naming tool.read', async () => {
    const res = await t.app.inject({ url: '/api/mcp-servers', headers: bearer(nobody.key) });
    expect(res.statusCode).toBe(403);
    expect(res.json().missingPerms).toEqual(['tool.read']);
  });

  it('gets one server; another organization\'s id is 404', async () => {
    const s = await createOk({ name: 'single', url: 'https://single.example.com/mcp' });
    const res = await t.app.inject({ url: `/api/mcp-servers/${s.id}`, headers: bearer(reader.key) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: s.id, name: 'single' });
    const other = await t.app.inject({ url: `/api/mcp-servers/${s.id}`, headers: bearer(t.orgB.apiKey.key) });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ error: 'MCP server not found' });
    expect((await t.app.inject({ url: '/api/mcp-servers/not-a-uuid', headers: admin })).statusCode).toBe(400);
  });
});

describe('PUT /api/mcp-servers/{id}', () => {
  it('replaces name/url; omitting token keeps it, null clears it; omitting enabled keeps it; audited', async () => {
    const s = await createOk({ name: 'put-me', url: 'https://one.example.com/mcp', token: 'tok-1', enabled: false });
    const put = (payload: Record<string, unknown>, headers = admin) => t.app.inject({ method: 'PUT', url: `/api/mcp-servers/${s.id}`, headers, payload });

    // Same origin, another path: the token stays (another origin needs it again: secret-origin.test.ts).
    let res = await put({ name: 'put-me-2', url: 'https://one.example.com/v2/mcp' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'put-me-2', url: 'https://one.example.com/v2/mcp', hasToken: true, enabled: false });
    let row = await t.database.db.selectFrom('mcpServers').select('tokenCiphertext').where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(t.secrets.decrypt(row.tokenCiphertext!)).toBe('tok-1');

    res = await put({ name: 'put-me-2', url: 'https://two.example.com/mcp', token: 'tok-2', enabled: true });
    expect(res.json()).toMatchObject({ hasToken: true, enabled: true });
    expect(res.body).not.toContain('tok-2');
    row = await t.database.db.selectFrom('mcpServers').select('tokenCiphertext').where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(t.secrets.decrypt(row.tokenCiphertext!)).toBe('tok-2');

    res = await put({ name: 'put-me-2', url: 'https://two.example.com/mcp', token: null });
    expect(res.json()).toMatchObject({ hasToken: false, enabled: true });

    const audit = await t.database.db.selectFrom('auditLogs').select(['action', 'metadata']).where('resourceId', '=', s.id).orderBy('createdAt').execute();
    expect(audit.map((a) => a.action)).toEqual(['mcpServer.create', 'mcpServer.update', 'mcpServer.update', 'mcpServer.update']);
    expect(audit.map((a) => (a.metadata as { token?: string }).token)).toEqual([undefined, 'kept', 'replaced', 'cleared']);
    expect(JSON.stringify(audit)).not.toContain('tok-');
  });

  it('answers 409 on a taken name and when renaming a server agents use; 404 for another organization; 403 for a reader', async () => {
    const a = await createOk({ name: 'ren-a', url: 'https://a.example.com/mcp' });
    await createOk({ name: 'ren-b', url: 'https://b.example.com/mcp' });
    const put = (id: string, payload: Record<string, unknown>, headers = admin) => t.app.inject({ method: 'PUT', url: `/api/mcp-servers/${id}`, headers, payload });

    const taken = await put(a.id, { name: 'ren-b', url: 'https://a.example.com/mcp' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({ error: 'An MCP server named "ren-b" already exists' });

    await insertAgent(t.orgA.organization.id, 'Triage bot', ['lookup_indicator', 'mcp:ren-a/*']);
    const used = await put(a.id, { name: 'ren-c', url: 'https://a.example.com/mcp' });
    expect(used.statusCode).toBe(409);
    expect(used.json().error).toContain('"Triage bot"');
    // Same name, new URL: fine.
    expect((await put(a.id, { name: 'ren-a', url: 'https://a2.example.com/mcp' })).statusCode).toBe(200);

    expect((await put(a.id, { name: 'ren-x', url: 'https://a.example.com/mcp' }, bearer(t.orgB.apiKey.key))).statusCode).toBe(404);
    expect((await put(uuidv7(), { name: 'ren-x', url: 'https://a.example.com/mcp' })).statusCode).toBe(404);
    const forbidden = await put(a.id, { name: 'ren-x', url: 'https://a.example.com/mcp' }, bearer(reader.key));
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().missingPerms).toEqual(['tool.manage']);
    expect((await put(a.id, { name: 'ren-x' })).statusCode).toBe(400);
  });
});

describe('DELETE /api/mcp-servers/{id}', () => {
  it('deletes (audited); 404 afterwards and for another organization; 409 while agents use it', async () => {
    const s = await createOk({ name: 'del-me', url: 'https://del.example.com/mcp' });
    const del = (id: string, headers = admin) => t.app.inject({ method: 'DELETE', url: `/api/mcp-servers/${id}`, headers });

    expect((await del(s.id, bearer(t.orgB.apiKey.key))).statusCode).toBe(404);
    const forbidden = await del(s.id, bearer(reader.key));
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().missingPerms).toEqual(['tool.manage']);

    const res = await del(s.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true });
    expect((await del(s.id)).statusCode).toBe(404);
    const audit = await t.database.db.selectFrom('auditLogs').select('action').where('resourceId', '=', s.id).orderBy('createdAt').execute();
    expect(audit.map((a) => a.action)).toEqual(['mcpServer.create', 'mcpServer.delete']);

    const used = await createOk({ name: 'del-used', url: 'https://del.example.com/mcp' });
    await insertAgent(t.orgA.organization.id, 'Asset bot', ['mcp:del-used/lookup_asset']);
    const conflict = await del(used.id);
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().error).toContain('"Asset bot"');
    // An agent in another organization with a server of the same name does not count.
    await insertAgent(t.orgB.organization.id, 'Other org bot', ['mcp:del-free/*']);
    const free = await createOk({ name: 'del-free', url: 'https://del.example.com/mcp' });
    expect((await del(free.id)).statusCode).toBe(200);
  });
});

describe('GET /api/mcp-servers/{id}/tools', () => {
  async function serverId(name: string) {
    const row = await t.database.db.selectFrom('mcpServers').select('id').where('organizationId', '=', t.orgA.organization.id).where('name', '=', name).executeTakeFirstOrThrow();
    return row.id;
  }

  it('lists the server\'s tools live, sending the stored token', async () => {
    const id = await serverId('inventory');
    const before = mcp.methods.length;
    const res = await t.app.inject({ url: `/api/mcp-servers/${id}/tools`, headers: bearer(reader.key) });
    expect(res.statusCode, res.body).toBe(200);
    const { tools } = res.json() as { tools: Array<{ name: string; toolName: string; description: string; inputSchema: Record<string, unknown> }> };
    expect(tools.map((x) => x.name)).toEqual(['lookup_asset', 'failing_tool', 'throwing_tool']);
    expect(tools[0]).toMatchObject({
      name: 'lookup_asset',
      toolName: 'mcp:inventory/lookup_asset',
      description: 'Look up an asset in the inventory by hostname.',
      inputSchema: { type: 'object', properties: { hostname: { type: 'string' } }, required: ['hostname'] },
    });
    expect(mcp.methods.slice(before)).toEqual(expect.arrayContaining(['initialize', 'tools/list']));
    expect(res.body).not.toContain(TOKEN);
  });

  it('answers 502 when the server refuses the token', async () => {
    const s = await createOk({ name: 'bad-token', url: mcp.url, token: 'wrong' });
    const res = await t.app.inject({ url: `/api/mcp-servers/${s.id}/tools`, headers: admin });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ error: 'Cannot use MCP server "bad-token": the server refused the credentials (HTTP 401); check the token' });
  });

  it('answers 502 with the reason when the server is unreachable', async () => {
    const s = await createOk({ name: 'down', url: closedPortUrl });
    const res = await t.app.inject({ url: `/api/mcp-servers/${s.id}/tools`, headers: admin });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ error: expect.stringMatching(/^Cannot use MCP server "down": Cannot reach 127\.0\.0\.1:\d+ \(connection refused\)$/) });
  });

  it('answers 502 when the URL does not speak MCP', async () => {
    const s = await createOk({ name: 'not-mcp', url: mcp.url.replace(/\/mcp$/, '/elsewhere') });
    const res = await t.app.inject({ url: `/api/mcp-servers/${s.id}/tools`, headers: admin });
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toMatch(/^Cannot use MCP server "not-mcp": /);
  });

  it('answers 404 for another organization, 403 without tool.read', async () => {
    const id = await serverId('inventory');
    expect((await t.app.inject({ url: `/api/mcp-servers/${id}/tools`, headers: bearer(t.orgB.apiKey.key) })).statusCode).toBe(404);
    const res = await t.app.inject({ url: `/api/mcp-servers/${id}/tools`, headers: bearer(nobody.key) });
    expect(res.statusCode).toBe(403);
    expect(res.json().missingPerms).toEqual(['tool.read']);
  });
});

describe('GET /api/tools', () => {
  it('lists every built-in tool with its permissions and each MCP server of the organization as mcp:<server>/*', async () => {
    await createOk({ name: 'catalog', url: 'https://catalog.example.com/mcp', token: TOKEN });
    await t.app.inject({ method: 'POST', url: '/api/mcp-servers', headers: bearer(t.orgB.apiKey.key), payload: { name: 'other-org-server', url: 'https://other.example.com/mcp' } });
    const res = await t.app.inject({ url: '/api/tools', headers: bearer(reader.key) });
    expect(res.statusCode, res.body).toBe(200);
    const { tools } = res.json() as { tools: Array<{ toolName: string; kind: string; permissions: string[]; mcpServer: string | null; enabled: boolean; defaultPolicy: string | null }> };
    expect(tools).toEqual(expect.arrayContaining([
      { toolName: 'get_alert', kind: 'builtin', permissions: ['alert.read'], mcpServer: null, enabled: true, defaultPolicy: 'allow' },
      { toolName: 'create_alert', kind: 'builtin', permissions: ['alert.triage'], mcpServer: null, enabled: true, defaultPolicy: 'allow' },
      { toolName: 'mcp:catalog/*', kind: 'mcp', permissions: [], mcpServer: 'catalog', enabled: true, defaultPolicy: null },
      { toolName: 'mcp:no-token_1/*', kind: 'mcp', permissions: [], mcpServer: 'no-token_1', enabled: false, defaultPolicy: null },
    ]));
    // The default a call takes when the agent sets no policy (docs/approvals.md#tool-policies): declared, or per call.
    expect(tools.find((x) => x.toolName === 'block_indicator')?.defaultPolicy).toBe('approve');
    expect(tools.find((x) => x.toolName === 'http_request')?.defaultPolicy).toBeNull();
    expect(tools.filter((x) => x.kind === 'builtin')).toHaveLength(12);
    expect(tools.map((x) => x.toolName)).not.toContain('mcp:other-org-server/*');
    expect(res.body).not.toContain(TOKEN);
    // Every listed name is accepted by an agent.
    const agent = await t.app.inject({ method: 'POST', url: '/api/agents', headers: admin, payload: { name: 'Uses all tools', systemPrompt: 'x', modelAlias: 'default', toolNames: tools.map((x) => x.toolName) } });
    expect(agent.statusCode, agent.body).toBe(200);
    await t.app.inject({ method: 'DELETE', url: `/api/agents/${agent.json().id}`, headers: admin });
  });

  it('answers 403 naming tool.read, 401 without a key', async () => {
    const res = await t.app.inject({ url: '/api/tools', headers: bearer(nobody.key) });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: expect.any(String), missingPerms: ['tool.read'] });
    expect((await t.app.inject({ url: '/api/tools' })).statusCode).toBe(401);
  });
});

describe('OpenAPI', () => {
  it('documents the MCP server routes under Tools', async () => {
    const doc = (await t.app.inject({ url: '/api/docs/openapi.json' })).json() as { paths: Record<string, Record<string, { tags?: string[]; responses: Record<string, unknown> }>> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/mcp-servers', '/api/mcp-servers/{id}', '/api/mcp-servers/{id}/tools']));
    expect(doc.paths['/api/mcp-servers']!.post!.tags).toEqual(['Tools']);
    expect(Object.keys(doc.paths['/api/mcp-servers/{id}/tools']!.get!.responses)).toEqual(expect.arrayContaining(['200', '404', '502']));
  });
});
