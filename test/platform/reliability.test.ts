import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createAuthenticator } from '../../src/platform/auth/authenticator.js';
import { createInvalidationBus } from '../../src/platform/cache/invalidation-bus.js';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.js';
import { EmbeddedStartError, startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/platform/db/embedded.js';
import { isDatabaseUnavailable } from '../../src/platform/db/errors.js';
import { migrateToLatest } from '../../src/migrations.js';
import { JobCatalog, defineJob } from '../../src/platform/jobs/catalog.js';
import { enqueue } from '../../src/platform/jobs/enqueue.js';
import { startWorkers, type WorkerRunner } from '../../src/platform/jobs/runner.js';
import { createSecretBox } from '../../src/platform/secrets.js';
import { seedReferenceData } from '../../src/seed.js';
import { createOrganization } from '../../src/modules/organizations/index.js';
import { createTestApp, type TestContext } from '../support/app.js';

const UNAVAILABLE = { error: 'Service temporarily unavailable: the database is unreachable; retry shortly' };

/** A raw HTTP/1.1 exchange over a real socket: what the client really receives. */
function rawRequest(port: number, head: string, body: Buffer | null, chunked = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', (err) => (answer ? resolve(answer) : reject(err)));
    socket.on('close', () => resolve(answer));
    socket.write(head);
    if (body && chunked) {
      for (let i = 0; i < body.length; i += 64 * 1024) {
        const part = body.subarray(i, i + 64 * 1024);
        socket.write(`${part.length.toString(16)}\r\n`);
        socket.write(part);
        socket.write('\r\n');
      }
      socket.end('0\r\n\r\n');
    } else if (body) socket.end(body);
  });
}

describe('a large body over a real socket', () => {
  let t: TestContext;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(() => t.close());

  it('reaches the client as 413, with and without Content-Length', async () => {
    const body = Buffer.alloc(8 * 1024 * 1024, 'a');
    const auth = `Authorization: Bearer ${t.orgA.apiKey.key}\r\n`;
    for (const chunked of [false, true]) {
      const head =
        `POST /api/output-destinations HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\n` +
        (chunked ? 'Transfer-Encoding: chunked\r\n\r\n' : `Content-Length: ${body.length}\r\n\r\n`);
      const answer = await rawRequest(port, head, body, chunked);
      expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
      expect(answer).toContain('{"error":"Request body is larger than 1048576 bytes"}');
    }
  });

  it('reaches an HTTP client library (fetch) as 413, not as a connection reset', async () => {
    // A slow sender (a real network): the body is still arriving when the server has decided.
    for (const declared of [true, false]) {
      const chunk = new Uint8Array(256 * 1024).fill(0x61);
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent >= 24) return controller.close();
          sent++;
          await new Promise((r) => setTimeout(r, 10));
          controller.enqueue(chunk);
        },
      });
      const res = await fetch(`http://127.0.0.1:${port}/api/output-destinations`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.orgA.apiKey.key}`,
          'content-type': 'application/json',
          ...(declared ? { 'content-length': String(24 * chunk.length) } : {}),
        },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({ error: 'Request body is larger than 1048576 bytes' });
    }
  });
});

describe('database errors that mean "unavailable"', () => {
  it('recognises connection failures, shutdowns and pool errors, not query errors', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('connection failure'), { code: '08006' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]))).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: Object.assign(new Error('x'), { code: '57P03' }) }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});

/**
 * An external PostgreSQL restarting (or failing over) under a running process: a separate
 * embedded server stands in for it, stopped and started again while the app, the LISTEN
 * connection and a worker pool keep running.
 */
describe('an external PostgreSQL restarting', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-restart-'));
  let server: EmbeddedDatabase;
  let database: DatabaseHandle;
  let app: FastifyInstance;
  let workers: WorkerRunner;
  let key: string;
  const ran: number[] = [];
  const notified: (string | null)[] = [];
  let stopListening: () => Promise<void>;

  beforeAll(async () => {
    server = await startEmbeddedDatabase(dataDir);
    database = openDatabase(server.connectionString, { max: 5 });
    await migrateToLatest(database.db, database.pool, { seed: seedReferenceData });
    const config = loadConfig({ RAMPART_DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: server.connectionString });
    const bus = createInvalidationBus({ reconnectDelayMs: 100 });
    bus.subscribe('rampart_test_channel', (p) => notified.push(p));
    stopListening = await bus.listen(database.pool);
    app = await buildApp({ config, database, logger: pino({ level: 'silent' }), authenticator: createAuthenticator(database.db), secrets: createSecretBox(randomBytes(32)), invalidation: bus });
    key = (await createOrganization(database.db, { name: 'Org', adminEmail: 'a@a.test' })).apiKey.key;
    const catalog = new JobCatalog().register(defineJob({ name: 'test:record', payload: z.object({ n: z.number() }), run: async ({ n }) => void ran.push(n) }));
    workers = await startWorkers({ db: database.db, pool: database.pool, catalog, logger: pino({ level: 'silent' }), concurrency: 2, pollIntervalMs: 200 });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await stopListening?.();
    await workers?.stop();
    await database?.close();
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const list = () => app.inject({ method: 'GET', url: '/api/output-destinations', headers: { authorization: `Bearer ${key}` } });

  it('answers 503 with Retry-After while it is down, then recovers without a process restart', async () => {
    expect((await list()).statusCode).toBe(200);
    await enqueue(database.db, { name: 'test:record', payload: z.object({ n: z.number() }) }, { n: 1 });
    await expect.poll(() => ran, { timeout: 10_000 }).toContain(1);
    // Its completion committed too: stopped between the task and its completion, a job runs again
    // (at least once, as graphile-worker promises), which is not what this test is about.
    await expect.poll(async () => (await database.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM graphile_worker._private_jobs')).rows[0]!.n, { timeout: 10_000 }).toBe(0);

    await server.stop();
    const down = await list();
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('5');
    expect(down.json()).toEqual(UNAVAILABLE);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);

    server = await startEmbeddedDatabase(dataDir);
    await expect.poll(async () => (await list()).statusCode, { timeout: 15_000 }).toBe(200);
    // Jobs resume: the same worker pool picks up work enqueued after the restart.
    await enqueue(database.db, { name: 'test:record', payload: z.object({ n: z.number() }) }, { n: 2 });
    await expect.poll(() => ran, { timeout: 15_000 }).toContain(2);
    expect(ran.filter((n) => n === 1)).toHaveLength(1);
    // LISTEN resubscribed: the loss was reported (null: drop caches) and new notifications arrive.
    expect(notified).toContain(null);
    await expect
      .poll(async () => {
        await database.pool.query(`NOTIFY rampart_test_channel, 'after-restart'`);
        return notified.includes('after-restart');
      }, { timeout: 15_000 })
      .toBe(true);
  }, 60_000);
});

describe('router-level errors', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers an over-long path parameter and a malformed path with the standard 400 body', async () => {
    const headers = { authorization: `Bearer ${t.orgA.apiKey.key}` };
    const long = await t.app.inject({ url: `/api/mcp-servers/${'a'.repeat(500)}`, headers });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toEqual({ error: 'Validation failed', issues: [{ path: '', message: 'A path parameter is too long', code: 'too_big', location: 'params' }] });
    const bad = await t.app.inject({ url: '/api/mcp-servers/%E0%A4%A', headers });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'Validation failed', issues: [{ code: 'invalid_url', location: 'params' }] });
  });
});

describe('embedded database start-up', () => {
  it('stops the PostgreSQL orphaned by a killed owner, says so, and starts its own', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-orphan-'));
    try {
      // An owner process that is then killed with SIGKILL: its postgres keeps running.
      const owner = spawn(process.execPath, ['--import', 'tsx', '-e', `import('./src/platform/db/embedded.ts').then((m) => m.startEmbeddedDatabase(${JSON.stringify(dir)})).then(() => console.log('up'))`], {
        cwd: path.resolve(import.meta.dirname, '../..'),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve, reject) => {
        owner.stdout!.on('data', (d) => String(d).includes('up') && resolve());
        owner.once('exit', (code) => reject(new Error(`owner exited with ${code}`)));
      });
      owner.kill('SIGKILL');
      await new Promise((r) => owner.once('exit', r));
      const orphan = Number(fs.readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
      expect(() => process.kill(orphan, 0)).not.toThrow();

      const logs: string[] = [];
      const db = await startEmbeddedDatabase(dir, { log: (m) => logs.push(m) });
      expect(logs.join('\n')).toContain(`found an orphaned embedded PostgreSQL (pid ${orphan})`);
      expect(() => process.kill(orphan, 0)).toThrow();
      const client = new pg.Client({ connectionString: db.connectionString });
      await client.connect();
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await client.end();
      await db.stop();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('names the problem and what to do when PostgreSQL cannot start (never a bare undefined)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-badstart-'));
    const blocker = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const err = await startEmbeddedDatabase(dir, { preferredPort: port }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(EmbeddedStartError);
      expect((err as Error).message).toContain('The embedded PostgreSQL did not start');
      expect((err as Error).message).toContain(`What to do: Port ${port} is taken by another program`);
      expect((err as Error).message).not.toContain('undefined');
    } finally {
      blocker.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
