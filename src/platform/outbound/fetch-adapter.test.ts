import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedClient } from './guarded-client.js';
import { guardedFetch } from './fetch-adapter.js';
import { OutboundError } from './errors.js';

let server: http.Server;
let base = '';
const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url === '/empty') return res.writeHead(204).end();
      if (req.url === '/slow') return setTimeout(() => res.end('late'), 5_000).unref();
      res.writeHead(201, { 'content-type': 'application/json', 'x-trace': 'abc' });
      res.end(JSON.stringify({ echoed: body }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const open = guardedFetch(createGuardedClient({ allowPrivateNetworks: true, retries: 0 }));

describe('guardedFetch', () => {
  it('sends method, headers and body; answers a real Response', async () => {
    const res = await open(`${base}/x`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: '{"a":1}' });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-trace')).toBe('abc');
    expect(await res.json()).toEqual({ echoed: '{"a":1}' });
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ method: 'POST', url: '/x', body: '{"a":1}' });
    expect(last.headers.authorization).toBe('Bearer k');
  });

  it('accepts a Request object and byte bodies', async () => {
    const res = await open(new Request(`${base}/r`, { method: 'PUT', body: new TextEncoder().encode('bytes') }));
    expect(await res.json()).toEqual({ echoed: 'bytes' });
  });

  it('gives a null body for 204', async () => {
    const res = await open(`${base}/empty`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });

  it('rejects with AbortError when the caller aborts', async () => {
    const ac = new AbortController();
    const pending = open(`${base}/slow`, { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('keeps the SSRF policy: private addresses are refused', async () => {
    const guarded = guardedFetch(createGuardedClient({ allowPrivateNetworks: false, retries: 0 }));
    const err = await guarded(`${base}/x`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).code).toBe('forbidden_address');
  });
});
