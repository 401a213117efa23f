import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { loadConfig } from '../../src/config.js';

/** Issue 19 item 6: rate-limit scopes that cannot starve probes or other senders; RAMPART_TRUST_PROXY. */
let t: TestContext;
const LIMIT = 5;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_RATE_LIMIT_PER_MINUTE: String(LIMIT), RAMPART_TRUST_PROXY: '10.0.0.0/8' } });
});
afterAll(() => t.close());

// Three API calls per trigger: with the limit at 5 per key, each organization's key makes one.
async function webhookTrigger(org: 'orgA' | 'orgB') {
  const admin = bearer(t[org].apiKey.key);
  const agent = (await t.app.inject({ method: 'POST', url: '/api/agents', headers: admin, payload: { name: `A${Math.random()}`, systemPrompt: 'x' } })).json().id;
  const { secret, webhookUrl } = (await t.app.inject({ url: `/api/agents/${agent}/trigger/webhook/fields`, headers: admin })).json().data;
  const id = webhookUrl.split('/').pop();
  await t.app.inject({ method: 'POST', url: `/api/agents/${agent}/trigger/save`, headers: admin, payload: { triggerId: id, source: 'webhook', createAlert: false } });
  return { path: `/api/trigger/webhook/${id}`, secret };
}

const fire = (tr: { path: string; secret: string }, remoteAddress = '198.51.100.7') =>
  t.app.inject({ method: 'POST', url: tr.path, remoteAddress, headers: { 'content-type': 'application/json', 'x-rampart-secret': tr.secret }, payload: '{"n":1}' });

describe('rate-limit scopes', () => {
  it('a flooded webhook limit leaves the probes and other triggers alone', async () => {
    const noisy = await webhookTrigger('orgA');
    const quiet = await webhookTrigger('orgB');
    for (let i = 0; i < LIMIT; i++) expect((await fire(noisy)).statusCode).toBe(200);
    const limited = await fire(noisy);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeTruthy();
    // Same address, another trigger: its own budget.
    expect((await fire(quiet)).statusCode).toBe(200);
    // Probes are never limited, however many requests come from the address.
    for (let i = 0; i < LIMIT * 3; i++) {
      expect((await t.app.inject({ url: '/healthz', remoteAddress: '198.51.100.7' })).statusCode).toBe(200);
      expect((await t.app.inject({ url: '/readyz', remoteAddress: '198.51.100.7' })).statusCode).toBe(200);
    }
    expect((await t.app.inject({ url: '/metrics', remoteAddress: '198.51.100.7' })).statusCode).toBe(200);
  });

  it('failed logins are limited per client address, taken from X-Forwarded-For behind a trusted proxy', async () => {
    const viaProxy = (client: string) => t.app.inject({ url: '/api/alerts', remoteAddress: '10.1.2.3', headers: { authorization: 'Bearer rmp_nope', 'x-forwarded-for': client } });
    for (let i = 0; i < LIMIT; i++) expect((await viaProxy('203.0.113.50')).statusCode).toBe(401);
    expect((await viaProxy('203.0.113.50')).statusCode).toBe(429);
    // Another client behind the same proxy is not punished for the first one.
    expect((await viaProxy('203.0.113.51')).statusCode).toBe(401);
  });
});

describe('RAMPART_TRUST_PROXY', () => {
  it('accepts true/false, a hop count, or addresses and CIDRs; refuses anything else', () => {
    expect(loadConfig({ RAMPART_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ RAMPART_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ RAMPART_TRUST_PROXY: '10.0.0.0/8, 192.168.1.10' }).trustProxy).toEqual(['10.0.0.0/8', '192.168.1.10']);
    expect(() => loadConfig({ RAMPART_TRUST_PROXY: 'proxy.internal' })).toThrow(/RAMPART_TRUST_PROXY/);
  });
});

describe('content types', () => {
  it('a text/plain body on a JSON route is 415, not 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: { ...bearer(t.orgA.apiKey.key), 'content-type': 'text/plain' }, payload: '{"title":"x"}' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ error: expect.stringContaining('text/plain') });
  });
});
