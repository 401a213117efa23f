import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedClient, type GuardedClientOptions } from './guarded-client.js';
import { OutboundError } from './errors.js';
import type { LookupAll } from './vetting-lookup.js';

type Route = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;
const routes = new Map<string, Route>();
let server: http.Server;
let port = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const route = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
      if (!route) {
        res.writeHead(404);
        return res.end('nope');
      }
      route(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/**
 * Fake DNS plus a policy under which 127.0.0.1 counts as public and every other address as
 * forbidden: `good.test` is a "public" host served by the local server, `evil.test` is not.
 */
const hosts: Record<string, string[]> = { 'good.test': ['127.0.0.1'], 'evil.test': ['127.0.0.2'], 'mixed.test': ['127.0.0.1', '127.0.0.2'] };
const lookups: string[] = [];
const lookup: LookupAll = (host, _opts, cb) => {
  lookups.push(host);
  const addresses = hosts[host];
  if (!addresses) return cb(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
  cb(null, addresses.map((address) => ({ address, family: 4 })));
};
const policy = (ip: string) => (ip === '127.0.0.1' ? null : 'loopback');
function client(extra: Partial<GuardedClientOptions> = {}) {
  return createGuardedClient({ allowPrivateNetworks: false, lookup, addressPolicy: policy, retries: 0, ...extra });
}
const good = (path: string) => `http://good.test:${port}${path}`;
const echo: Route = (q, res, body) => res.end(JSON.stringify({ method: q.method, host: q.headers.host, auth: q.headers.authorization ?? null, ua: q.headers['user-agent'], body }));

async function failure(p: Promise<unknown>): Promise<OutboundError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(OutboundError);
    return err as OutboundError;
  }
  throw new Error('expected a failure');
}

describe('guarded client: SSRF', () => {
  it('refuses loopback and metadata addresses by default, literal or resolved', async () => {
    const real = createGuardedClient({ allowPrivateNetworks: false, retries: 0 });
    const direct = await failure(real.request(`http://127.0.0.1:${port}/`));
    expect(direct.code).toBe('forbidden_address');
    expect(direct.message).toBe('Refusing to connect to 127.0.0.1 (loopback)');
    expect((await failure(real.request('http://169.254.169.254/latest/meta-data/'))).message).toMatch(/cloud metadata/);
    expect((await failure(real.request('http://[fd00:ec2::254]/latest/meta-data/'))).message).toMatch(/cloud metadata/);
    expect((await failure(real.request(`http://[::ffff:127.0.0.1]:${port}/`))).message).toMatch(/IPv4-mapped IPv6 to loopback/);
    expect((await failure(real.request(`http://[::1]:${port}/`))).code).toBe('forbidden_address');
    expect((await failure(real.request(`http://localhost:${port}/`))).code).toBe('forbidden_address');
    // WHATWG URL normalises decimal, hex and octal IPv4 forms to dotted quads.
    for (const host of ['2130706433', '0x7f.1', '0177.0.0.1', '127.1']) {
      expect((await failure(real.request(`http://${host}:${port}/`))).code).toBe('forbidden_address');
    }
  });

  it('refuses a host when any resolved address is forbidden', async () => {
    const err = await failure(client().request(`http://evil.test:${port}/`));
    expect(err.message).toBe('Refusing to connect to evil.test (127.0.0.2, loopback)');
    expect(err.url).toBe(`http://evil.test:${port}/`);
    expect((await failure(client().request(`http://mixed.test:${port}/`))).code).toBe('forbidden_address');
  });

  it('connects to the vetted address, keeping the Host header', async () => {
    routes.set('/echo', echo);
    lookups.length = 0;
    const res = await client().request(good('/echo'));
    expect(res.json()).toMatchObject({ host: `good.test:${port}`, ua: 'Rampart/1.0' });
    expect(lookups).toEqual(['good.test']);
  });

  it('allows private networks when configured, but never cloud metadata', async () => {
    routes.set('/ok', (_q, res) => res.end('fine'));
    const open = createGuardedClient({ allowPrivateNetworks: true });
    const res = await open.request(`http://127.0.0.1:${port}/ok`);
    expect(res.status).toBe(200);
    expect(res.text()).toBe('fine');
    expect((await open.request(`http://localhost:${port}/ok`)).text()).toBe('fine');
    // Cloud metadata stays refused: nothing Rampart calls lives there, and it hands out credentials.
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/', 'http://[::ffff:169.254.169.254]/']) {
      expect((await failure(open.request(url))).message, url).toMatch(/cloud metadata/);
    }
    await open.close();
  });

  it('re-checks every redirect hop', async () => {
    routes.set('/to-evil', (_q, res) => {
      res.writeHead(302, { location: `http://evil.test:${port}/ok` });
      res.end();
    });
    routes.set('/to-literal', (_q, res) => {
      res.writeHead(307, { location: `http://127.0.0.2:${port}/ok` });
      res.end();
    });
    expect((await failure(client().request(good('/to-evil')))).message).toMatch(/evil\.test \(127\.0\.0\.2, loopback\)/);
    expect((await failure(client().request(good('/to-literal')))).code).toBe('forbidden_address');
  });

  it('refuses other protocols, also as a redirect target', async () => {
    expect((await failure(client().request('file:///etc/passwd'))).code).toBe('unsupported_protocol');
    expect((await failure(client().request('ftp://good.test/x'))).code).toBe('unsupported_protocol');
    expect((await failure(client().request('not a url'))).code).toBe('unsupported_protocol');
    routes.set('/to-file', (_q, res) => {
      res.writeHead(301, { location: 'file:///etc/passwd' });
      res.end();
    });
    expect((await failure(client().request(good('/to-file')))).code).toBe('unsupported_protocol');
  });

  it('reports DNS failures', async () => {
    const err = await failure(client().request('http://nowhere.test/'));
    expect(err.code).toBe('dns');
    expect(err.message).toBe('Cannot resolve nowhere.test (no such host)');
  });
});

describe('guarded client: limits', () => {
  it('times out waiting for headers, and while reading the body', async () => {
    routes.set('/hang', () => {});
    routes.set('/stall', (_q, res) => res.write('partial'));
    const started = Date.now();
    expect((await failure(client({ timeoutMs: 200 }).request(good('/hang')))).code).toBe('timeout');
    expect((await failure(client().request(good('/stall'), { timeoutMs: 200 }))).code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('caps bodies by Content-Length, by streamed size, and after decompression', async () => {
    routes.set('/big', (_q, res) => {
      res.writeHead(200, { 'content-length': '5000' });
      res.end('x'.repeat(5000));
    });
    routes.set('/chunked', (_q, res) => {
      res.writeHead(200);
      for (let i = 0; i < 10; i++) res.write('y'.repeat(1000));
      res.end();
    });
    const bomb = zlib.gzipSync(Buffer.alloc(50_000_000));
    routes.set('/bomb', (_q, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
      res.end(bomb);
    });
    const c = client({ maxResponseBytes: 100_000 });
    expect(bomb.length).toBeLessThan(100_000);
    const tooBig = await failure(c.request(good('/big'), { maxResponseBytes: 4096 }));
    expect(tooBig.code).toBe('response_too_large');
    expect(tooBig.message).toBe(`The response from good.test:${port} is larger than 4096 bytes`);
    expect((await failure(c.request(good('/chunked'), { maxResponseBytes: 4096 }))).code).toBe('response_too_large');
    expect((await failure(c.request(good('/bomb')))).code).toBe('response_too_large');
    expect((await c.request(good('/big'))).body.length).toBe(5000); // under the client-wide cap
  });

  it('saves a body to a file (saveTo), decoded and under the same caps', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guarded-save-'));
    try {
      routes.set('/gz', (_q, res) => {
        res.writeHead(200, { 'content-encoding': 'gzip' });
        res.end(zlib.gzipSync(Buffer.from('z'.repeat(20_000))));
      });
      const file = path.join(dir, 'body');
      const res = await client().request(good('/gz'), { saveTo: file });
      expect(res.body.length).toBe(0);
      expect(fs.readFileSync(file, 'utf8')).toBe('z'.repeat(20_000));
      expect((await failure(client().request(good('/gz'), { saveTo: file, maxResponseBytes: 10_000 }))).code).toBe('response_too_large');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('decodes gzip, deflate and brotli, and sends Accept-Encoding', async () => {
    for (const [name, enc] of [['gzip', zlib.gzipSync], ['deflate', zlib.deflateSync], ['br', zlib.brotliCompressSync]] as const) {
      routes.set(`/enc-${name}`, (q, res) => {
        res.writeHead(200, { 'content-encoding': name, 'content-type': 'text/plain' });
        res.end(enc(Buffer.from(`hello ${name} (${q.headers['accept-encoding']})`)));
      });
      expect((await client().request(good(`/enc-${name}`))).text()).toBe(`hello ${name} (gzip, deflate, br)`);
    }
    routes.set('/head', (_q, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': '999999999' });
      res.end();
    });
    expect((await client().request(good('/head'), { method: 'HEAD' })).body.length).toBe(0);
  });

  it('decodes the declared charset, UTF-8 otherwise', async () => {
    routes.set('/latin1', (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=ISO-8859-1' });
      res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    });
    routes.set('/json', (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('\ufeff{"name":"café"}');
    });
    expect((await client().request(good('/latin1'))).text()).toBe('café');
    expect((await client().request(good('/json'))).json<{ name: string }>().name).toBe('café');
  });
});

describe('guarded client: redirects', () => {
  it('stops after too many redirects', async () => {
    routes.set('/loop', (_q, res) => {
      res.writeHead(302, { location: '/loop' });
      res.end();
    });
    expect((await failure(client({ maxRedirects: 3 }).request(good('/loop')))).code).toBe('too_many_redirects');
  });

  it('turns a POST into a GET on 303 (and 301/302), keeps it on 307, and reports the final URL', async () => {
    routes.set('/echo', echo);
    for (const status of [303, 301, 302, 307]) {
      routes.set(`/post-${status}`, (_q, res) => {
        res.writeHead(status, { location: '/echo' });
        res.end();
      });
      const res = await client().request(good(`/post-${status}`), { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
      expect(res.json()).toMatchObject(status === 307 ? { method: 'POST', body: '{"a":1}' } : { method: 'GET', body: '' });
      expect(res.url).toBe(good('/echo'));
    }
  });

  it('drops Authorization when a redirect changes origin, keeps it on the same origin', async () => {
    routes.set('/echo', echo);
    routes.set('/same', (_q, res) => {
      res.writeHead(307, { location: '/echo' });
      res.end();
    });
    routes.set('/cross', (_q, res) => {
      res.writeHead(307, { location: `http://127.0.0.1:${port}/echo` });
      res.end();
    });
    const c = client({ addressPolicy: () => null });
    expect((await c.request(good('/same'), { headers: { Authorization: 'Bearer s3cret' } })).json()).toMatchObject({ auth: 'Bearer s3cret' });
    expect((await c.request(good('/cross'), { headers: { Authorization: 'Bearer s3cret' } })).json()).toMatchObject({ auth: null });
  });

  it('sends URL credentials as Basic auth and keeps them out of URLs and errors', async () => {
    routes.set('/echo', echo);
    const res = await client().request(`http://al%40ice:p%3Ass@good.test:${port}/echo`);
    expect(res.json()).toMatchObject({ auth: `Basic ${Buffer.from('al@ice:p:ss').toString('base64')}` });
    expect(res.url).toBe(good('/echo'));
    const err = await failure(client().request(`http://alice:hunter2@evil.test:${port}/`, { headers: { authorization: 'Bearer t0ken' } }));
    expect(`${err.message} ${err.url}`).not.toMatch(/hunter2|t0ken/);
  });
});

describe('guarded client: retries', () => {
  it('retries 503 then succeeds, honouring Retry-After', async () => {
    let calls = 0;
    routes.set('/flaky', (_q, res) => {
      calls++;
      if (calls < 3) {
        res.writeHead(503, { 'retry-after': calls === 1 ? '7' : '120' });
        return res.end();
      }
      res.end('up');
    });
    const delays: number[] = [];
    const c = client({ retries: 3, maxRetryDelayMs: 60_000, sleep: async (ms) => void delays.push(ms) });
    const res = await c.request(good('/flaky'));
    expect(res.text()).toBe('up');
    expect(calls).toBe(3);
    expect(delays).toEqual([7_000, 60_000]); // the second one capped
  });

  it('returns the last response when retries run out, and does not retry POST by default', async () => {
    let calls = 0;
    routes.set('/down', (_q, res) => {
      calls++;
      res.writeHead(502);
      res.end();
    });
    const c = client({ retries: 2, sleep: async () => {} });
    expect((await c.request(good('/down'))).status).toBe(502);
    expect(calls).toBe(3);
    calls = 0;
    expect((await c.request(good('/down'), { method: 'POST', body: 'x' })).status).toBe(502);
    expect(calls).toBe(1);
    calls = 0;
    expect((await c.request(good('/down'), { method: 'POST', body: 'x', retryNonIdempotent: true })).status).toBe(502);
    expect(calls).toBe(3);
    calls = 0;
    expect((await c.request(good('/down'), { retryOn: [503] })).status).toBe(502);
    expect(calls).toBe(1);
  });

  it('retries network errors for idempotent requests, then throws the last error', async () => {
    const delays: number[] = [];
    const c = createGuardedClient({ allowPrivateNetworks: true, retries: 2, sleep: async (ms) => void delays.push(ms) });
    const err = await failure(c.request('http://127.0.0.1:1/'));
    expect(err.code).toBe('network');
    expect(err.message).toBe('Cannot reach 127.0.0.1:1 (connection refused)');
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBeGreaterThanOrEqual(250);
    expect(delays[1]).toBeGreaterThanOrEqual(500);
  });
});
