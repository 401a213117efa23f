import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logger.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';

/**
 * The request log as an operator reads it: one line per request with the request id, method,
 * route pattern, status and latency, written by the production logger (createLogger). The line
 * is written without pino's redaction and the per-request child logger is built lazily
 * (docs/performance.md, issue 27 §5): these tests pin what must not change with that.
 */
let t: TestContext;
let lines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  t = await createTestApp({
    logger: createLogger('info', sink),
    extend: (app) => {
      app.get('/api/test/boom/:id', async () => {
        throw new Error('kaboom with token=abc');
      });
      app.get('/api/test/quiet', { logLevel: 'warn' }, async () => ({ ok: true }));
    },
  });
});
afterAll(() => t.close());
beforeEach(() => {
  lines = [];
});

const parsed = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
const completed = () => parsed().filter((l) => l.msg === 'request completed');

describe('request log', () => {
  it('writes one line per request: reqId (the x-request-id answered), method, route pattern, status, ms', async () => {
    const res = await t.app.inject({ url: '/api/output-destinations', headers: bearer(t.orgA.apiKey.key) });
    expect(res.statusCode).toBe(200);
    expect(completed()).toHaveLength(1);
    const line = lines.find((l) => l.includes('request completed'))!;
    const entry = JSON.parse(line) as Record<string, unknown>;
    expect(Object.keys(entry)).toEqual(['level', 'time', 'service', 'reqId', 'method', 'route', 'status', 'ms', 'msg']);
    expect(entry).toMatchObject({ level: 30, service: 'rampart', reqId: res.headers['x-request-id'], method: 'GET', route: '/api/output-destinations', status: 200 });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(typeof entry.ms).toBe('number');
    expect(new Date(entry.time as string).toISOString()).toBe(entry.time);
    // Never the credential.
    expect(lines.join('\n')).not.toContain(t.orgA.apiKey.key);
  });

  it("keeps a caller's sane x-request-id in the line; a refused request (401) is logged at info", async () => {
    const res = await t.app.inject({ url: '/api/output-destinations', headers: { 'x-request-id': 'trace-77.a:b' } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['x-request-id']).toBe('trace-77.a:b');
    expect(completed()).toEqual([expect.objectContaining({ level: 30, reqId: 'trace-77.a:b', route: '/api/output-destinations', status: 401 })]);
  });

  it('a 500 logs the error through request.log with the request id, and the request line at error level', async () => {
    const res = await t.app.inject({ url: '/api/test/boom/1', headers: bearer(t.orgA.apiKey.key) });
    expect(res.statusCode).toBe(500);
    const reqId = res.headers['x-request-id'];
    const error = parsed().find((l) => l.msg === 'unhandled error');
    expect(error).toMatchObject({ level: 50, reqId, err: expect.objectContaining({ message: 'kaboom with token=abc' }) });
    expect(completed()).toEqual([expect.objectContaining({ level: 50, reqId, route: '/api/test/boom/:id', status: 500 })]);
  });

  it("a route's own logLevel still silences its line", async () => {
    const res = await t.app.inject({ url: '/api/test/quiet', headers: bearer(t.orgA.apiKey.key) });
    expect(res.statusCode).toBe(200);
    expect(completed()).toEqual([]);
  });

  it('an unknown route is logged without a route', async () => {
    const res = await t.app.inject({ url: '/api/no-such-route' });
    expect(res.statusCode).toBe(404);
    const [entry] = completed();
    expect(entry).toMatchObject({ level: 30, method: 'GET', status: 404, reqId: res.headers['x-request-id'] });
    expect(entry).not.toHaveProperty('route');
  });
});
