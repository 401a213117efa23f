import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { ANALYST_ROLE, SYSTEM_ROLES } from '../../src/platform/auth/permissions.js';

/**
 * Issue 41 item 8, as an Analyst (every `.read`, no `.manage`): credentials inside an MCP
 * server's `url` and a model provider's `baseUrl` (`?apikey=`, `?key=`) are redacted as they
 * are for destinations and sources; callers who can change the URL see it whole.
 */
let t: TestContext;
let admin: Record<string, string>;
let analyst: Record<string, string>;
const MCP_URL = 'https://mcp.vendor.example/mcp?tenant=acme&apikey=MCPSECRET12345';
const LLM_URL = 'https://llm-gateway.example/v1?key=GATEWAYSECRET987';

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  const permissions = [...SYSTEM_ROLES.find((r) => r.name === ANALYST_ROLE)!.permissions];
  analyst = bearer((await userWithPermissions(t.database.db, t.orgA.organization.id, permissions)).key);
});
afterAll(() => t.close());

describe('credentials inside MCP server and model provider URLs', () => {
  it('an Analyst reads them REDACTED in lists and single reads; tool.manage / agent.manage see them whole', async () => {
    const mcp = await t.app.inject({ method: 'POST', url: '/api/mcp-servers', headers: admin, payload: { name: 'vendor', url: MCP_URL } });
    expect(mcp.statusCode, mcp.body).toBe(200);
    expect(mcp.json().url).toBe(MCP_URL);
    const provider = await t.app.inject({ method: 'POST', url: '/api/model-providers', headers: admin, payload: { name: 'gateway', type: 'openai-compatible', baseUrl: LLM_URL } });
    expect(provider.statusCode, provider.body).toBe(200);
    expect(provider.json().baseUrl).toBe(LLM_URL);

    for (const url of ['/api/mcp-servers', `/api/mcp-servers/${mcp.json().id}`]) {
      const res = await t.app.inject({ url, headers: analyst });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).not.toContain('MCPSECRET12345');
      expect(res.body, url).toContain('https://mcp.vendor.example/mcp?tenant=acme&apikey=REDACTED');
      expect((await t.app.inject({ url, headers: admin })).body, url).toContain(MCP_URL);
    }
    for (const url of ['/api/model-providers', `/api/model-providers/${provider.json().id}`]) {
      const res = await t.app.inject({ url, headers: analyst });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).not.toContain('GATEWAYSECRET987');
      expect(res.body, url).toContain('https://llm-gateway.example/v1?key=REDACTED');
      expect((await t.app.inject({ url, headers: admin })).body, url).toContain(LLM_URL);
    }
  });

  it('a destination\'s API base and Tines tenant URLs too, not only config.url', async () => {
    const d = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: admin, payload: { type: 'tines', name: 'Tines via gateway', config: { teamId: '7', tenantUrl: 'https://acme.tines.example/?token=TENANTSECRET1', apiBaseUrl: 'https://gw.example/tines?api_key=GWSECRET12345' }, token: 'tines-api-key-123' } });
    expect(d.statusCode, d.body).toBe(200);
    for (const url of ['/api/output-destinations', `/api/output-destinations/${d.json().id}`]) {
      const res = await t.app.inject({ url, headers: analyst });
      expect(res.body, url).not.toMatch(/TENANTSECRET1|GWSECRET12345|tines-api-key-123/);
      expect(res.body, url).toContain('https://gw.example/tines?api_key=REDACTED');
      expect(res.body, url).toContain('https://acme.tines.example/?token=REDACTED');
      expect((await t.app.inject({ url, headers: admin })).body, url).toContain('GWSECRET12345');
    }
  });

  it('a URL without a credential is shown as stored to everyone', async () => {
    const p = await t.app.inject({ method: 'POST', url: '/api/model-providers', headers: admin, payload: { name: 'ollama', type: 'openai-compatible', baseUrl: 'http://ollama.example:11434/v1' } });
    expect((await t.app.inject({ url: `/api/model-providers/${p.json().id}`, headers: analyst })).json().baseUrl).toBe('http://ollama.example:11434/v1');
  });
});
