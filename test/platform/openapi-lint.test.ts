import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../scripts/openapi-document.js';

/**
 * The OpenAPI document as client generators (openapi-generator, openapi-python-client, Kiota,
 * orval) read it: methods are named by `operationId`, classes by tag; and `redocly lint` with its
 * recommended rules finds nothing beyond the exceptions of .redocly.lint-ignore.yaml.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Operation = { operationId?: string; tags?: string[] };
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> }; tags: { name: string; description?: string }[]; servers?: { url: string }[]; info: { license?: { name: string } } };

let doc: Document;
const operations = (): { method: string; path: string; op: Operation }[] =>
  Object.entries(doc.paths).flatMap(([p, item]) =>
    Object.entries(item).filter(([m]) => METHODS.includes(m)).map(([method, op]) => ({ method, path: p, op })));

beforeAll(async () => {
  doc = (await openApiDocument()) as unknown as Document;
}, 60_000);

describe('the OpenAPI document', () => {
  it('names every operation with a unique verbNoun operationId', () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(100);
    const seen = new Map<string, string>();
    for (const { method, path: p, op } of ops) {
      const where = `${method.toUpperCase()} ${p}`;
      expect(op.operationId, `${where} has an operationId (docs/api.md#operation-ids)`).toBeTypeOf('string');
      expect(op.operationId, `${where}: operationId is camelCase verbNoun`).toMatch(/^[a-z]+[A-Z][A-Za-z0-9]*$/);
      expect(seen.get(op.operationId!), `${where} reuses the operationId of ${seen.get(op.operationId!)}`).toBeUndefined();
      seen.set(op.operationId!, where);
    }
  });

  it('describes every tag an operation uses, and declares no tag without operations', () => {
    const declared = new Map(doc.tags.map((t) => [t.name, t.description]));
    const used = new Set(operations().flatMap(({ op }) => op.tags ?? []));
    for (const tag of used) expect(declared.get(tag), `tag ${tag} is declared with a description (src/platform/http/openapi.ts)`).toBeTruthy();
    for (const tag of declared.keys()) expect(used.has(tag), `declared tag ${tag} has operations`).toBe(true);
  });

  it('lists its component schemas sorted by name, whatever order their modules were loaded in', () => {
    // The bundled build evaluates modules in another order than the sources (server-build.test.ts
    // compares the two documents); sorted, the document is the same bytes either way.
    const names = Object.keys(doc.components.schemas);
    expect(names.length).toBeGreaterThan(50);
    expect(names).toEqual([...names].sort());
  });

  it('names its server and its license', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: expect.stringMatching(/^https?:\/\//) })]);
    expect(doc.info.license?.name).toBe('Apache-2.0');
  });
});

describe('redocly lint (recommended rules)', () => {
  let dir: string;
  beforeAll(() => {
    // The ignore file's keys name the linted file relative to it: lint a copy next to a copy.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-openapi-lint-'));
    fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc, null, 2));
    for (const file of ['redocly.yaml', '.redocly.lint-ignore.yaml']) fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('finds no error and no warning beyond the exceptions a standard requires', async () => {
    const cli = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
    const { stdout } = await promisify(execFile)(process.execPath, [cli, 'lint', 'openapi.json', '--format=json', '--max-problems=1000'], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number; ignored: number }; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
    const problems = report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 10 });
  }, 120_000);
});
