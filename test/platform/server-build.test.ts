import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/db.js';
import { waitForReadyz } from '../support/readyz.js';
import { freePort } from '../support/processes.js';

/**
 * The compiled build (scripts/build-server.js → dist/server) as `bin/rampart.js` runs it, in a
 * copy of the checkout so the worktree's own dist/ is left alone: the build starts and answers
 * /readyz, and an edited source makes the command run the sources through tsx (saying why)
 * until the next build, so an edit is never shadowed by stale JavaScript.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-build-'));
const FALLBACK = 'rampart: running the TypeScript sources through tsx';
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let server: ChildProcess | null = null;
// What `rampart serve` from the build answered, and on which port: the sources must answer the same.
let built: { port: number; env: Record<string, string>; document: string } | null = null;

function node(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, args, { cwd: copy, env: { PATH: process.env.PATH ?? '', HOME: os.homedir(), ...env }, encoding: 'utf8', timeout: 120_000 });
}


beforeAll(async () => {
  for (const entry of ['package.json', 'bin', 'scripts', 'src', 'bench/servers']) fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  database = await createTestDatabase();
}, 60_000);

afterAll(async () => {
  if (server && server.exitCode === null) server.kill('SIGKILL');
  await database?.close();
  fs.rmSync(copy, { recursive: true, force: true });
});

describe('compiled server build', () => {
  it('bundles the server with its lazy parts in their own chunks, copies the files the code reads, then finds it up to date', () => {
    const built = node(['scripts/build-server.js', '--if-stale']);
    expect(built.status, built.stderr).toBe(0);
    expect(built.stdout).toContain('server built in dist/server');
    expect(fs.existsSync(path.join(copy, 'dist/server/src/main.js'))).toBe(true);
    expect(fs.existsSync(path.join(copy, 'dist/server/bench/servers/rampart.js'))).toBe(true);
    expect(fs.existsSync(path.join(copy, 'dist/server/src/modules/intel/attack/attack-data/enterprise-attack.json'))).toBe(true);
    // Bundled: a few dozen files, each role's half and every lazily loaded part in chunks of its own.
    const bundle = fs.readdirSync(path.join(copy, 'dist/server/bundle')).filter((f) => f.endsWith('.js'));
    expect(bundle).toContain('main.js');
    expect(bundle.some((f) => /^app-\w+\.js$/.test(f))).toBe(true);
    expect(bundle.some((f) => /^runner-\w+\.js$/.test(f))).toBe(true);
    expect(bundle.length).toBeLessThan(150);
    expect(bundle.some((f) => f.includes('.test'))).toBe(false);
    // Zod's messages are English only in the build (scripts/build-server.js, zodEnglishOnly): its
    // 63 other locales were half of the Zod that every start compiled before spawning PostgreSQL.
    const bundleText = bundle.map((f) => fs.readFileSync(path.join(copy, 'dist/server/bundle', f), 'utf8'));
    expect(bundleText.some((text) => text.includes('Invalid input: expected'))).toBe(true);
    expect(bundleText.filter((text) => text.includes('erwartet instanceof'))).toEqual([]); // German (zod/v4/locales/de.js)

    // What each role loads at start is the entry's static closure: the lazy parts stayed lazy.
    const map = JSON.parse(fs.readFileSync(path.join(copy, 'dist/server/bundle.json'), 'utf8')) as Record<string, { imports: { path: string; kind: string }[]; packages: string[] }>;
    const chunk = (prefix: string) => Object.keys(map).find((f) => f.startsWith(`${prefix}-`))!;
    const packagesAtStart = (entries: string[]) => {
      const seen = new Set<string>();
      const queue = [...entries];
      while (queue.length) {
        const file = queue.pop()!;
        if (seen.has(file)) continue;
        seen.add(file);
        for (const i of map[file]!.imports) if (i.kind === 'import-statement') queue.push(i.path);
      }
      return new Set([...seen].flatMap((f) => map[f]!.packages));
    };
    const lazy = ['ai', '@ai-sdk/openai', '@modelcontextprotocol/sdk', 'feedsmith', 'fast-xml-parser', 'undici', 'openid-client'];
    expect(Object.values(map).flatMap((f) => f.packages)).toEqual(expect.arrayContaining(lazy)); // bundled, somewhere
    // main.js's own static graph is only what spawns the embedded PostgreSQL; every role then
    // loads the runtime and the organizations and sessions modules (src/main.ts).
    const roleCommon = ['main.js', chunk('runtime'), chunk('organizations'), chunk('sessions')];
    expect(packagesAtStart(['main.js'])).not.toContain('kysely'); // the database layer loads after the spawn
    const api = packagesAtStart([...roleCommon, chunk('app')]);
    expect(api).toContain('fastify');
    expect(lazy.filter((p) => api.has(p))).toEqual([]);
    const worker = packagesAtStart([...roleCommon, chunk('runner'), chunk('jobs'), chunk('scheduler'), chunk('maintenance.jobs')]);
    expect(worker).toContain('graphile-worker');
    expect(['fastify', '@fastify/swagger-ui', ...lazy].filter((p) => worker.has(p))).toEqual([]);
    expect(node(['scripts/build-server.js', '--if-stale']).stdout).toContain('server build up to date');
  }, 120_000);

  it('`rampart serve` runs the build, answers /readyz, serves the API reference and reads its data files', async () => {
    const port = await freePort();
    const dataDir = path.join(copy, '.rampart');
    let log = '';
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: os.homedir(),
      DATABASE_URL: database.url,
      RAMPART_SECRET_KEY: randomBytes(32).toString('base64url'),
      RAMPART_DATA_DIR: dataDir,
      // The outbound check below calls a receiver on this host.
      RAMPART_ALLOW_PRIVATE_NETWORKS: 'true',
      PORT: String(port),
      HOST: '127.0.0.1',
    };
    server = spawn(process.execPath, ['bin/rampart.js', 'serve'], { cwd: copy, env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (d) => (log += d));
    server.stderr!.on('data', (d) => (log += d));
    await waitForReadyz(`http://127.0.0.1:${port}`, { child: server, log: () => log, timeoutMs: 60_000 });
    expect(log).not.toContain(FALLBACK);
    const origin = `http://127.0.0.1:${port}`;
    // Swagger UI's page and assets come from its package's own folder (left out of the bundle).
    const page = await fetch(`${origin}/api/docs/`);
    expect(page.status).toBe(200);
    const css = /href="\.\/([^"]+\.css)"/.exec(await page.text())?.[1];
    expect(css).toBeTruthy();
    expect((await fetch(`${origin}/api/docs/${css}`)).status).toBe(200);
    const document = await (await fetch(`${origin}/api/docs/openapi.json`)).text();
    expect((JSON.parse(document) as { openapi?: string }).openapi).toMatch(/^3\./);
    built = { port, env, document };
    // The shipped ATT&CK catalog is read beside its module's source path (the bundle's import.meta rewrite).
    const key = fs.readFileSync(path.join(dataDir, 'bootstrap-api-key'), 'utf8').trim();
    const coverage = await fetch(`${origin}/api/coverage/attack`, { headers: { authorization: `Bearer ${key}` } });
    expect(coverage.status, await coverage.clone().text()).toBe(200);
    // An outbound call: the guarded client loads undici (a CommonJS package) at its first request.
    const received: string[] = [];
    const receiver = http.createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      res.end('{}');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const url = `http://127.0.0.1:${(receiver.address() as net.AddressInfo).port}/hook`;
      const created = await fetch(`${origin}/api/output-destinations`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'build check', type: 'webhook', config: { url, authType: 'bearer' }, token: 'build-check-token' }) });
      expect(created.status, await created.clone().text()).toBe(200);
      const { id } = (await created.json()) as { id: string };
      const sent = await fetch(`${origin}/api/output-destinations/${id}/test`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
      expect(await sent.json()).toMatchObject({ ok: true, status: 200 });
      expect(received).toEqual(['POST /hook']);
    } finally {
      receiver.close();
    }
    server.kill('SIGTERM');
    await new Promise((r) => server!.once('exit', r));
  }, 90_000);

  it('the TypeScript sources serve the same OpenAPI document as the build, byte for byte', async () => {
    // Zod's registry lists the named schemas in module evaluation order, which the bundle's shared
    // chunks change; the document sorts them (src/platform/http/openapi.ts).
    expect(built, 'the build served its document (the test before)').not.toBeNull();
    const { port, env, document } = built!;
    let log = '';
    server = spawn(process.execPath, ['bin/rampart.js', 'serve'], { cwd: copy, env: { ...env, RAMPART_RUN_FROM_SOURCE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (d) => (log += d));
    server.stderr!.on('data', (d) => (log += d));
    await waitForReadyz(`http://127.0.0.1:${port}`, { child: server, log: () => log, timeoutMs: 90_000 });
    expect(log).toContain(`${FALLBACK}: RAMPART_RUN_FROM_SOURCE=1`);
    const fromSource = await (await fetch(`http://127.0.0.1:${port}/api/docs/openapi.json`)).text();
    server.kill('SIGTERM');
    await new Promise((r) => server!.once('exit', r));
    const schemaNames = (text: string) => Object.keys((JSON.parse(text) as { components: { schemas: object } }).components.schemas);
    expect(schemaNames(fromSource)).toEqual(schemaNames(document));
    expect(schemaNames(document).length).toBeGreaterThan(50);
    // Compared by digest: a failure names the two digests, not two half-megabyte strings.
    const digest = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(digest(fromSource)).toBe(digest(document));
  }, 120_000);

  it('sources whose times changed but not their code (an installed tarball) still run the build', () => {
    // npm packs every file with one fixed modification time: the metadata stamp differs, the content stamp does not.
    const packedTime = new Date('1985-10-26T08:15:00Z');
    for (const rel of ['src/cli/args.ts', 'src/main.ts']) fs.utimesSync(path.join(copy, rel), packedTime, packedTime);
    const touched = node(['bin/rampart.js', 'help']);
    expect(touched.status, touched.stderr).toBe(0);
    expect(touched.stderr).not.toContain(FALLBACK);
    expect(touched.stdout).toContain('Usage: rampart <command>');
  }, 60_000);

  it('an edited source runs through tsx, saying why, until the next build', () => {
    const args = path.join(copy, 'src/cli/args.ts');
    fs.writeFileSync(args, fs.readFileSync(args, 'utf8').replace('Usage: rampart <command>', 'Usage: rampart <command> (edited)'));
    const stale = node(['bin/rampart.js', 'help']);
    expect(stale.status, stale.stderr).toBe(0);
    expect(stale.stderr).toContain(`${FALLBACK}: the sources changed since dist/server was built`);
    expect(stale.stdout).toContain('(edited)');

    const forced = node(['bin/rampart.js', 'help'], { RAMPART_RUN_FROM_SOURCE: '1' });
    expect(forced.stderr).toContain(`${FALLBACK}: RAMPART_RUN_FROM_SOURCE=1`);

    expect(node(['scripts/build-server.js', '--if-stale']).stdout).toContain('server built');
    const rebuilt = node(['bin/rampart.js', 'help']);
    expect(rebuilt.stderr).not.toContain(FALLBACK);
    expect(rebuilt.stdout).toContain('(edited)');
  }, 120_000);
});
