import { sql } from 'kysely';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { uuidv7 } from 'uuidv7';
import { generateText, stepCountIs, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/platform/auth/actor.js';
import { PERMISSIONS, type Permission } from '../../src/platform/auth/permissions.js';
import { createGuardedClient, type GuardedClient } from '../../src/platform/outbound/index.js';
import { buildToolSet, type ToolDeps, type ToolRunContext } from '../../src/modules/tools/toolset.js';
import { createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { seedIntel } from '../support/intel-data.js';
import { startFakeMcp, type FakeMcp } from '../support/fakes/mcp-server.js';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.js';

let t: TestContext;
let open: GuardedClient;
let guarded: GuardedClient;
let deps: ToolDeps;
let seedA: Awaited<ReturnType<typeof seedIntel>>;
let seedB: Awaited<ReturnType<typeof seedIntel>>;
let adminA: Actor;
let adminB: Actor;
let mcp: FakeMcp;
let web: FixtureServer;
let webUrl: string;
let closedPortUrl: string;

const MCP_TOKEN = 'mcp-run-token';
const logger = pino({ level: 'silent' });

function actorOf(organizationId: string, userId: string, roleId: string, permissions: readonly string[]): Actor {
  return { type: 'user', userId, organizationId, apiKeyId: null, roleId, permissions: new Set(permissions) };
}

async function restricted(organizationId: string, permissions: Permission[]): Promise<Actor> {
  const u = await userWithPermissions(t.database.db, organizationId, permissions);
  return actorOf(organizationId, u.userId, u.roleId, permissions);
}

function runCtx(actor: Actor, extra: Partial<ToolRunContext> = {}): ToolRunContext {
  return { organizationId: actor.organizationId, actor, runId: uuidv7(), agentId: uuidv7(), signal: new AbortController().signal, requestId: `run:${uuidv7()}`, ...extra };
}

/** Executes a tool directly, as the AI SDK would after validating the input. */
async function exec(tools: ToolSet, name: string, input: unknown): Promise<any> {
  const tool = tools[name];
  if (!tool?.execute) throw new Error(`no tool ${name}`);
  return tool.execute(input as never, { toolCallId: 'x', messages: [] });
}

async function toolsFor(actor: Actor, names: string[], d: ToolDeps = deps, extra: Partial<ToolRunContext> = {}) {
  return buildToolSet(d, runCtx(actor, extra), names);
}

async function addMcpServer(organizationId: string, name: string, url: string, opts: { token?: string; enabled?: boolean } = {}) {
  const now = new Date();
  await t.database.db
    .insertInto('mcpServers')
    .values({ id: uuidv7(), organizationId, name, url, tokenCiphertext: opts.token ? t.secrets.encrypt(opts.token) : null, enabled: opts.enabled ?? true, createdAt: now, updatedAt: now })
    .execute();
}

async function addDestination(organizationId: string, name: string) {
  const id = uuidv7();
  const now = new Date();
  await t.database.db
    .insertInto('outputDestinations')
    .values({ id, organizationId, name, type: 'webhook', config: JSON.stringify({ url: 'https://hooks.example.com/in', authType: 'bearer' }), tokenCiphertext: null, createdAt: now, updatedAt: now })
    .execute();
  return id;
}

beforeAll(async () => {
  t = await createTestApp();
  open = createGuardedClient({ allowPrivateNetworks: true, retries: 0 });
  guarded = createGuardedClient({ allowPrivateNetworks: false, retries: 0 });
  deps = { db: t.database.db, secrets: t.secrets, http: open, logger };
  seedA = await seedIntel(t.database.db, t.orgA.organization.id);
  seedB = await seedIntel(t.database.db, t.orgB.organization.id);
  adminA = actorOf(t.orgA.organization.id, t.orgA.user.id, t.orgA.user.roleId, PERMISSIONS);
  adminB = actorOf(t.orgB.organization.id, t.orgB.user.id, t.orgB.user.roleId, PERMISSIONS);

  mcp = await startFakeMcp({ token: MCP_TOKEN });
  await addMcpServer(t.orgA.organization.id, 'inventory', mcp.url, { token: MCP_TOKEN });
  await addMcpServer(t.orgA.organization.id, 'off', mcp.url, { token: MCP_TOKEN, enabled: false });

  web = await startFixtureServer(
    {
      '/big': { type: 'text/plain; charset=utf-8', body: 'é'.repeat(40_000) }, // 80,000 bytes
      // Any other path echoes the request.
      '*': (req) => ({ status: 201, headers: { 'set-cookie': 'session=secret', 'x-custom': 'kept-out' }, json: { method: req.method, path: req.url, auth: req.headers.authorization ?? null, body: req.body } }),
    },
    {
      onRequest: (req, res) => {
        if (req.url !== '/slow') return false;
        setTimeout(() => res.end('late'), 5_000);
        return true;
      },
    },
  );
  webUrl = web.url;
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  closedPortUrl = `http://127.0.0.1:${(s.address() as AddressInfo).port}/mcp`;
  await new Promise<void>((r) => s.close(() => r()));
});

afterAll(async () => {
  await web?.close();
  await mcp?.close();
  await open?.close();
  await guarded?.close();
  await t?.close();
});

describe('buildToolSet', () => {
  it('gives the built-in tools under their names, and nothing else', async () => {
    const set = await toolsFor(adminA, ['search_intel_items', 'lookup_indicator', 'record_indicator_check', 'send_to_destination', 'http_request', 'lookup_indicator']);
    expect(Object.keys(set.tools).sort()).toEqual(['http_request', 'lookup_indicator', 'record_indicator_check', 'search_intel_items', 'send_to_destination']);
    await set.close();
    expect(Object.keys((await toolsFor(adminA, [])).tools)).toEqual([]);
  });

  it('refuses an unknown tool name', async () => {
    await expect(toolsFor(adminA, ['rm_rf'])).rejects.toThrow('Unknown tool "rm_rf"');
  });
});

describe('search_intel_items', () => {
  it('finds the organization\'s items, compactly', async () => {
    const { tools } = await toolsFor(adminA, ['search_intel_items']);
    const out = await exec(tools, 'search_intel_items', { query: 'FortiOS', limit: 5 });
    expect(out.total).toBe(1);
    expect(out.items).toHaveLength(1);
    const item = out.items[0];
    expect(item).toMatchObject({
      id: seedA.itemIds[0],
      title: 'LockBit affiliate exploits CVE-2026-1234 in FortiOS',
      severity: 'critical',
      publishedAt: '2026-11-01T00:00:00.000Z',
      url: 'https://seed.example/posts/0',
      tldr: 'TLDR 0',
      summary: 'Summary 0',
      cves: ['CVE-2026-1234'],
      techniques: ['T1190'],
    });
    expect(item.indicators).toEqual(expect.arrayContaining([{ type: 'ipv4', value: '203.0.113.1' }, { type: 'domain', value: 'c2-0.evil-example.net' }]));
    expect(item.indicators[0].type).toBe('sha256'); // highest confidence first
    expect(Object.keys(item)).not.toContain('provenance');
  });

  it('filters by severity and limits', async () => {
    const { tools } = await toolsFor(adminA, ['search_intel_items']);
    const high = await exec(tools, 'search_intel_items', { query: 'roundup', severity: 'high', limit: 10 });
    expect(high.items.map((i: { id: string }) => i.id)).toEqual([seedA.itemIds[1]]);
    const limited = await exec(tools, 'search_intel_items', { query: 'roundup', limit: 2 });
    expect(limited.total).toBe(4);
    expect(limited.items).toHaveLength(2);
  });

  it('never returns another organization\'s items', async () => {
    const { tools } = await toolsFor(adminB, ['search_intel_items']);
    const out = await exec(tools, 'search_intel_items', { query: 'FortiOS', limit: 5 });
    expect(out.items.map((i: { id: string }) => i.id)).toEqual([seedB.itemIds[0]]);
  });

  it('fails naming intel.read when the run\'s user lacks it', async () => {
    const { tools } = await toolsFor(await restricted(t.orgA.organization.id, ['tool.use']), ['search_intel_items']);
    await expect(exec(tools, 'search_intel_items', { query: 'FortiOS', limit: 5 })).rejects.toThrow(/search_intel_items needs intel\.read/);
  });
});

describe('lookup_indicator and record_indicator_check', () => {
  it('refangs, finds the exact indicator first, with status and items', async () => {
    const { tools } = await toolsFor(adminA, ['lookup_indicator']);
    const out = await exec(tools, 'lookup_indicator', { value: 'c2-0.evil-example[.]net' });
    expect(out).toMatchObject({ value: 'c2-0.evil-example.net', known: true, status: 'unchecked' });
    expect(out.indicators[0]).toEqual({
      id: seedA.indicatorIds[1],
      type: 'domain',
      value: 'c2-0.evil-example.net',
      exact: true,
      status: 'unchecked',
      lastCheckedAt: null,
      item: { id: seedA.itemIds[0], title: 'LockBit affiliate exploits CVE-2026-1234 in FortiOS', source: 'Seeded source' },
    });
    const orgAIds = new Set(seedA.indicatorIds);
    expect(out.indicators.every((i: { id: string }) => orgAIds.has(i.id))).toBe(true);
  });

  it('keeps the exact indicator even when many newer rows merely contain it', async () => {
    const db = t.database.db;
    const base = { organizationId: t.orgA.organization.id, itemId: seedA.itemIds[2]!, confidence: 0.8, firstSeen: new Date(), lastSeen: new Date(), ttlDays: 30, intelTitle: 'Crowd', sourceLabel: 'Seeded source' };
    const domainId = uuidv7();
    await db.insertInto('intelIndicators').values({ ...base, id: domainId, type: 'domain', value: 'crowd.example-bad.net', normalizedValue: 'crowd.example-bad.net', createdAt: new Date(Date.now() - 60_000) }).execute();
    await db
      .insertInto('intelIndicators')
      .values(Array.from({ length: 60 }, (_, i) => ({ ...base, id: uuidv7(), type: 'url', value: `https://crowd.example-bad.net/p/${i}`, normalizedValue: `https://crowd.example-bad.net/p/${i}`, createdAt: new Date() })))
      .execute();
    const { tools } = await toolsFor(adminA, ['lookup_indicator']);
    const out = await exec(tools, 'lookup_indicator', { value: 'crowd[.]example-bad[.]net' });
    expect(out.known).toBe(true);
    expect(out.totalMatches).toBe(61);
    expect(out.indicators).toHaveLength(25);
    expect(out.indicators[0]).toMatchObject({ id: domainId, exact: true, type: 'domain' });
    expect(out.indicators.slice(1).every((i: { exact: boolean; type: string }) => !i.exact && i.type === 'url')).toBe(true);
  });

  it('answers known: false for a value not in the intel', async () => {
    const { tools } = await toolsFor(adminA, ['lookup_indicator']);
    expect(await exec(tools, 'lookup_indicator', { value: 'nothing-here.example.org' })).toEqual({ value: 'nothing-here.example.org', known: false, status: null, totalMatches: 0, indicators: [] });
  });

  it('records a check as the run\'s user (audited with the run\'s request id); lookup then shows it', async () => {
    const ctx = runCtx(adminA);
    const { tools } = await buildToolSet(deps, ctx, ['lookup_indicator', 'record_indicator_check']);
    const indicatorId = seedA.indicatorIds[0]!; // 203.0.113.1
    const rec = await exec(tools, 'record_indicator_check', { indicatorId, outcome: 'found', evidence: '3 hits in proxy logs' });
    expect(rec).toMatchObject({ indicatorId, outcome: 'found', checkId: expect.any(String), indicator: { type: 'ipv4', value: '203.0.113.1', status: 'found', lastCheckedAt: expect.any(String) } });
    const audit = await t.database.db.selectFrom('auditLogs').selectAll().where('resourceId', '=', indicatorId).executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ action: 'ioc.check', actorUserId: adminA.userId, requestId: ctx.requestId, organizationId: t.orgA.organization.id });

    const looked = await exec(tools, 'lookup_indicator', { value: '203.0.113[.]1' });
    expect(looked).toMatchObject({ known: true, status: 'found' });
    expect(looked.indicators[0]).toMatchObject({ id: indicatorId, exact: true, status: 'found', lastCheckedAt: rec.checkedAt });
  });

  it('cannot touch another organization\'s indicator', async () => {
    const { tools } = await toolsFor(adminA, ['record_indicator_check']);
    await expect(exec(tools, 'record_indicator_check', { indicatorId: seedB.indicatorIds[0], outcome: 'clean' })).rejects.toThrow('Indicator not found');
    const row = await t.database.db.selectFrom('intelIndicators').select('status').where('id', '=', seedB.indicatorIds[0]!).executeTakeFirstOrThrow();
    expect(row.status).toBe('unchecked');
  });

  it('fails naming the missing permission', async () => {
    const reader = await restricted(t.orgA.organization.id, ['intel.read']);
    const { tools } = await toolsFor(reader, ['lookup_indicator', 'record_indicator_check']);
    await expect(exec(tools, 'record_indicator_check', { indicatorId: seedA.indicatorIds[2], outcome: 'clean' })).rejects.toThrow(/record_indicator_check needs intel\.manage/);
    const none = await toolsFor(await restricted(t.orgA.organization.id, []), ['lookup_indicator']);
    await expect(exec(none.tools, 'lookup_indicator', { value: '203.0.113.2' })).rejects.toThrow(/lookup_indicator needs intel\.read/);
  });
});

describe('send_to_destination', () => {
  it('records a pending agent.message delivery for the organization\'s destination', async () => {
    const destinationId = await addDestination(t.orgA.organization.id, 'SOAR');
    const ctx = runCtx(adminA);
    const { tools } = await buildToolSet(deps, ctx, ['send_to_destination']);
    const out = await exec(tools, 'send_to_destination', { destinationId, message: 'Host web-01 talked to 203.0.113.1', title: 'IOC hit' });
    expect(out).toEqual({ deliveryId: expect.any(String), destinationId, destinationName: 'SOAR', destinationType: 'webhook', status: 'pending' });
    const row = await t.database.db.selectFrom('destinationDeliveries').selectAll().where('id', '=', out.deliveryId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ organizationId: t.orgA.organization.id, destinationId, eventKind: 'agent.message', status: 'pending', attemptCount: 0 });
    expect(row.payload).toEqual({ occurredAt: expect.any(String), data: { runId: ctx.runId, agentId: ctx.agentId, title: 'IOC hit', message: 'Host web-01 talked to 203.0.113.1' } });
    // Its job is queued in the same transaction (delivery's front door).
    const { rows: jobs } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM graphile_worker._private_jobs WHERE payload->>'deliveryId' = ${out.deliveryId}`.execute(t.database.db);
    expect(jobs[0]!.n).toBe(1);
    // Several messages to one destination in one run are fine.
    await exec(tools, 'send_to_destination', { destinationId, message: 'second' });
  });

  it('refuses unknown ids and other organizations\' destinations', async () => {
    const otherOrg = await addDestination(t.orgB.organization.id, 'B hook');
    const { tools } = await toolsFor(adminA, ['send_to_destination']);
    await expect(exec(tools, 'send_to_destination', { destinationId: otherOrg, message: 'x' })).rejects.toThrow(`No output destination ${otherOrg}`);
    await expect(exec(tools, 'send_to_destination', { destinationId: uuidv7(), message: 'x' })).rejects.toThrow(/No output destination/);
    const n = await t.database.db.selectFrom('destinationDeliveries').select('id').where('destinationId', '=', otherOrg).execute();
    expect(n).toHaveLength(0);
  });

  it('fails naming destination.read', async () => {
    const destinationId = await addDestination(t.orgA.organization.id, 'Perms');
    const { tools } = await toolsFor(await restricted(t.orgA.organization.id, ['intel.read']), ['send_to_destination']);
    await expect(exec(tools, 'send_to_destination', { destinationId, message: 'x' })).rejects.toThrow(/destination\.read/);
  });
});

describe('http_request', () => {
  it('sends the request and answers status, selected headers and body', async () => {
    const { tools } = await toolsFor(adminA, ['http_request']);
    const out = await exec(tools, 'http_request', { url: `${webUrl}/api?q=1`, method: 'POST', headers: { authorization: 'Bearer abc', 'content-type': 'text/plain' }, body: 'hello' });
    expect(out.status).toBe(201);
    expect(out.truncated).toBe(false);
    expect(out.headers['content-type']).toBe('application/json');
    expect(out.headers).not.toHaveProperty('set-cookie');
    expect(out.headers).not.toHaveProperty('x-custom');
    expect(JSON.parse(out.body)).toEqual({ method: 'POST', path: '/api?q=1', auth: 'Bearer abc', body: 'hello' });
  });

  it('truncates bodies to 32 KiB without splitting a character', async () => {
    const { tools } = await toolsFor(adminA, ['http_request']);
    const out = await exec(tools, 'http_request', { url: `${webUrl}/big`, method: 'GET' });
    expect(out.truncated).toBe(true);
    expect(Buffer.byteLength(out.body)).toBe(32 * 1024);
    expect(out.body).toBe('é'.repeat(16 * 1024));
  });

  it('refuses private addresses through the guarded client (SSRF)', async () => {
    const { tools } = await toolsFor(adminA, ['http_request'], { ...deps, http: guarded });
    await expect(exec(tools, 'http_request', { url: `${webUrl}/api`, method: 'GET' })).rejects.toThrow(/^Refusing to connect to 127\.0\.0\.1/);
    await expect(exec(tools, 'http_request', { url: 'http://169.254.169.254/latest/meta-data/', method: 'GET' })).rejects.toThrow(/Refusing to connect/);
  });

  it('stops when the run is aborted', async () => {
    const ac = new AbortController();
    const { tools } = await toolsFor(adminA, ['http_request'], deps, { signal: ac.signal });
    const pending = exec(tools, 'http_request', { url: `${webUrl}/slow`, method: 'GET' });
    setTimeout(() => ac.abort(), 100);
    await expect(pending).rejects.toThrow(/cancelled/);
  });

  it('refuses a body on GET, and fails naming tool.use', async () => {
    const { tools } = await toolsFor(adminA, ['http_request']);
    await expect(exec(tools, 'http_request', { url: `${webUrl}/api`, method: 'GET', body: 'x' })).rejects.toThrow('A GET request cannot have a body');
    const denied = await toolsFor(await restricted(t.orgA.organization.id, ['intel.read']), ['http_request']);
    await expect(exec(denied.tools, 'http_request', { url: `${webUrl}/api`, method: 'GET' })).rejects.toThrow(/http_request needs tool\.use/);
  });
});

describe('MCP tools', () => {
  it('exposes every tool of mcp:<server>/* under provider-safe names, calling with the stored token', async () => {
    const set = await toolsFor(adminA, ['mcp:inventory/*', 'lookup_indicator']);
    try {
      expect(Object.keys(set.tools).sort()).toEqual(['lookup_indicator', 'mcp__inventory__failing_tool', 'mcp__inventory__lookup_asset', 'mcp__inventory__throwing_tool']);
      const before = mcp.calls.length;
      const out = await exec(set.tools, 'mcp__inventory__lookup_asset', { hostname: 'web-01.corp.example' });
      expect(out).toBe('web-01.corp.example: owner=platform-team, criticality=high, os=Ubuntu 22.04');
      expect(mcp.calls.slice(before)).toEqual([{ name: 'lookup_asset', arguments: { hostname: 'web-01.corp.example' }, authorization: `Bearer ${MCP_TOKEN}` }]);
      await expect(exec(set.tools, 'mcp__inventory__failing_tool', {})).rejects.toThrow('Inventory backend unavailable');
      await expect(exec(set.tools, 'mcp__inventory__throwing_tool', {})).rejects.toThrow(/boom from throwing_tool/);
    } finally {
      await set.close();
    }
  });

  it('exposes only the named tools; a tool the server lacks fails the build', async () => {
    const set = await toolsFor(adminA, ['mcp:inventory/lookup_asset']);
    expect(Object.keys(set.tools)).toEqual(['mcp__inventory__lookup_asset']);
    await set.close();
    await expect(toolsFor(adminA, ['mcp:inventory/lookup_asset', 'mcp:inventory/nope'])).rejects.toThrow('MCP server "inventory" has no tool "nope" (it offers lookup_asset, failing_tool, throwing_tool)');
  });

  it('fails the build for unknown, disabled, other-organization and unreachable servers', async () => {
    await expect(toolsFor(adminA, ['mcp:ghost/*'])).rejects.toThrow('No MCP server named "ghost" in this organization');
    await expect(toolsFor(adminA, ['mcp:off/*'])).rejects.toThrow('MCP server "off" is disabled');
    await expect(toolsFor(adminB, ['mcp:inventory/*'])).rejects.toThrow('No MCP server named "inventory" in this organization');
    await addMcpServer(t.orgA.organization.id, 'down', closedPortUrl);
    await expect(toolsFor(adminA, ['mcp:down/*'])).rejects.toThrow(/^Cannot use MCP server "down": Cannot reach 127\.0\.0\.1:\d+ \(connection refused\)$/);
    await addMcpServer(t.orgA.organization.id, 'wrong-token', mcp.url, { token: 'nope' });
    await expect(toolsFor(adminA, ['mcp:wrong-token/*'])).rejects.toThrow('Cannot use MCP server "wrong-token": the server refused the credentials (HTTP 401); check the token');
  });

  it('connects only through the guarded client (a private address is refused)', async () => {
    await expect(toolsFor(adminA, ['mcp:inventory/*'], { ...deps, http: guarded })).rejects.toThrow(/^Cannot use MCP server "inventory": Refusing to connect to 127\.0\.0\.1/);
  });

  it('fails a call naming tool.use when the run\'s user lacks it', async () => {
    const set = await toolsFor(await restricted(t.orgA.organization.id, ['intel.read']), ['mcp:inventory/lookup_asset']);
    const before = mcp.calls.length;
    await expect(exec(set.tools, 'mcp__inventory__lookup_asset', { hostname: 'db-01.corp.example' })).rejects.toThrow(/tool\.use/);
    expect(mcp.calls.length).toBe(before);
    await set.close();
  });

  it('works inside an AI SDK loop: results and tool errors reach the model', async () => {
    const set = await toolsFor(adminA, ['mcp:inventory/*', 'lookup_indicator']);
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        step++;
        if (step === 1) {
          return {
            content: [
              { type: 'tool-call', toolCallId: 'c1', toolName: 'mcp__inventory__lookup_asset', input: JSON.stringify({ hostname: 'db-01.corp.example' }) },
              { type: 'tool-call', toolCallId: 'c2', toolName: 'mcp__inventory__failing_tool', input: '{}' },
              { type: 'tool-call', toolCallId: 'c3', toolName: 'lookup_indicator', input: JSON.stringify({ value: 'c2-1.evil-example[.]net' }) },
            ],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          };
        }
        return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      },
    });
    try {
      const result = await generateText({ model, prompt: 'check', tools: set.tools, stopWhen: stepCountIs(3) });
      expect(result.text).toBe('done');
      const first = result.steps[0]!;
      const results = first.content.filter((p) => p.type === 'tool-result' || p.type === 'tool-error');
      expect(results.map((p) => [p.type, p.toolName])).toEqual([
        ['tool-result', 'mcp__inventory__lookup_asset'],
        ['tool-error', 'mcp__inventory__failing_tool'],
        ['tool-result', 'lookup_indicator'],
      ]);
      expect((results[0] as { output: unknown }).output).toContain('db-01.corp.example: owner=data-team');
      expect(String((results[1] as { error: unknown }).error)).toContain('Inventory backend unavailable');
      expect((results[2] as { output: { known: boolean } }).output.known).toBe(true);
      // The model was offered the MCP tool with the server's JSON Schema.
      const call = model.doGenerateCalls[0]!;
      const offered = call.tools!.find((x) => x.name === 'mcp__inventory__lookup_asset') as { inputSchema: { properties: Record<string, unknown> } };
      expect(offered.inputSchema.properties).toHaveProperty('hostname');
    } finally {
      await set.close();
    }
  });
});
