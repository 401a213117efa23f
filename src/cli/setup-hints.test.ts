import dns from 'node:dns/promises';
import net from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { assertSessionKept } from '../platform/db/session-check.js';
import { baseUrlWarning, DatabaseConnectError, databaseConnectError, ListenError, listenError } from './setup-hints.js';

describe('the RAMPART_BASE_URL warning', () => {
  it('is given on a shared (external) database without RAMPART_BASE_URL, and only then', () => {
    const external = 'postgres://rampart@db.internal/rampart';
    expect(baseUrlWarning(loadConfig({ DATABASE_URL: external }))).toMatch(/^RAMPART_BASE_URL is not set/);
    expect(baseUrlWarning(loadConfig({ DATABASE_URL: external, RAMPART_BASE_URL: 'https://rampart.example.com' }))).toBeNull();
    // The embedded database belongs to one process: its own address is the right one.
    expect(baseUrlWarning(loadConfig({}))).toBeNull();
  });
});

/** The error `listen` gives for this host and port (real sockets), or null. */
async function listenFailure(host: string, port: number): Promise<unknown> {
  const srv = net.createServer();
  return new Promise((resolve) => {
    srv.once('error', resolve);
    srv.listen(port, host, () => srv.close(() => resolve(null)));
  });
}

describe('listen errors', () => {
  it('names the port another program holds, and a free one to try', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as net.AddressInfo;
    try {
      const err = listenError(await listenFailure('127.0.0.1', port), '127.0.0.1', port);
      expect(err).toBeInstanceOf(ListenError);
      expect(err?.message).toBe(`Port ${port} on 127.0.0.1 is already in use by another program.\n  What to do: stop that program, or set PORT to a free port (e.g. PORT=${port + 1}).`);
    } finally {
      holder.close();
    }
  });

  it('says a HOST that is not this machine\'s, and what to set instead', async () => {
    // TEST-NET-1 (RFC 5737): never an address of this machine.
    const err = listenError(await listenFailure('192.0.2.1', 0), '192.0.2.1', 8080);
    expect(err?.message).toMatch(/^HOST=192\.0\.2\.1 is not an address of this machine\.\n {2}What to do: set HOST to one of its addresses/);
  });

  it('explains a privileged port, and leaves every other error alone', () => {
    // As an unprivileged user's listen on port 80 fails (this suite may run as root, where it does not).
    expect(listenError(Object.assign(new Error('listen EACCES: permission denied 127.0.0.1:80'), { code: 'EACCES' }), '127.0.0.1', 80)?.message).toMatch(/^Not allowed to listen on port 80 on 127\.0\.0\.1 \(ports below 1024 need privileges\)/);
    expect(listenError(new Error('boom'), '127.0.0.1', 8080)).toBeNull();
    expect(listenError(undefined, '127.0.0.1', 8080)).toBeNull();
  });
});

describe('database connection errors (DATABASE_URL)', () => {
  it('says a host name that does not resolve, from the resolver\'s own error', async () => {
    const err = await dns.lookup('no-such-host.invalid').catch((e: unknown) => e);
    const out = databaseConnectError(err, 'postgres://app:secret@no-such-host.invalid:6432/rampart');
    expect(out).toBeInstanceOf(DatabaseConnectError);
    expect(out?.message).toBe('Cannot connect to the database at no-such-host.invalid:6432 (DATABASE_URL): the host name "no-such-host.invalid" does not resolve.\n  What to do: check DATABASE_URL\'s host.');
  });

  it('finds the code inside an AggregateError or a cause, as "localhost" on both address families gives it', () => {
    const refused = (address: string) => Object.assign(new Error(`connect ECONNREFUSED ${address}:5432`), { code: 'ECONNREFUSED' });
    const both = new AggregateError([refused('::1'), refused('127.0.0.1')], '');
    expect(databaseConnectError(both, 'postgres://app:secret@localhost/rampart')?.message).toMatch(/^Cannot connect to the database at localhost:5432 \(DATABASE_URL\): the connection was refused\./);
    expect(databaseConnectError(new Error('wrapped', { cause: both }), 'postgres://app@db/rampart')?.message).toMatch(/^Cannot connect to the database at db:5432/);
  });

  it('says a server that never answers, instead of suggesting a pooler', async () => {
    // Accepts the connection and says nothing, as a dropped route or a hung server looks to a client.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => void sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const url = `postgres://app:secret@127.0.0.1:${port}/rampart`;
    const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 5_000 });
    try {
      const err = await assertSessionKept(pool, { timeoutMs: 1_000 }).catch((e: unknown) => e);
      expect(databaseConnectError(err, url)?.message).toBe(
        `Cannot connect to the database at 127.0.0.1:${port} (DATABASE_URL): no answer within 1 s (nothing accepted the connection, or it was accepted and the server said nothing).\n  What to do: check the network path to it (firewall, security group, VPN).`,
      );
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
      await pool.end();
    }
  });

  it('leaves every other error alone, and never repeats the password', () => {
    expect(databaseConnectError(Object.assign(new Error('syntax error'), { code: '42601' }), 'postgres://app:secret@db/rampart')).toBeNull();
    expect(databaseConnectError(new Error('boom'), 'not a url')).toBeNull();
    const denied = Object.assign(new Error('password authentication failed for user "app"'), { code: '28P01' });
    expect(databaseConnectError(denied, 'postgres://app:s3cr%40t@db:5433/rampart')?.message).toBe(
      'The database at db:5433 (DATABASE_URL) refused user "app": password authentication failed for user "app".\n  What to do: check DATABASE_URL\'s user and password, and the server\'s pg_hba.conf.',
    );
  });
});
