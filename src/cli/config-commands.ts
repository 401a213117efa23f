import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { ConfigFileError, parseConfigFiles, resolveSecretReferences, type ResolvedReference } from '../modules/config/index.js';
import { formatPlan, type Change, type NotCompared } from './plan-format.fns.js';

/**
 * `rampart apply` and `rampart export`: agents as code against a running server
 * (docs/agents-as-code.md). They speak the HTTP API only — `RAMPART_URL`, `RAMPART_API_KEY` —
 * and resolve secret references here, where they run, so values never sit in files.
 * Exit codes: 0 done (or, with --dry-run, nothing to change), 2 --dry-run found changes, 1 error.
 */
export class CliError extends Error {}

type Out = { stdout: (s: string) => void; stderr: (s: string) => void };
const std: Out = { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) };

function server(env: NodeJS.ProcessEnv) {
  const url = (env.RAMPART_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
  const key = env.RAMPART_API_KEY;
  if (!key) throw new CliError('RAMPART_API_KEY is not set: an API key of the organization to configure');
  return async (method: string, route: string, body?: unknown) => {
    let res: Response;
    try {
      res = await fetch(`${url}${route}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      throw new CliError(`cannot reach ${url} (RAMPART_URL): ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`);
    }
    const text = await res.text();
    return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
  };
}

/**
 * A `${file:…}` reference reads only under the directory of the files applied (`-f`'s folder,
 * or a file's own folder), symlinks followed: a file under review cannot name the server's key
 * file or the runner's credentials. A relative path is relative to that directory.
 */
export function fileReader(target: string): (ref: string) => string {
  const root = fs.realpathSync(fs.statSync(target).isDirectory() ? target : path.dirname(target));
  const refuse = (p: string) => {
    const inside = path.relative(root, p);
    if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) {
      throw new Error(`\${file:…} reads only files under ${root} (the directory of the files applied)`);
    }
  };
  return (ref) => {
    // As written first (no probing of paths outside), then as the file system resolves it (symlinks).
    refuse(path.resolve(root, ref));
    const real = fs.realpathSync(path.resolve(root, ref));
    refuse(real);
    return fs.readFileSync(real, 'utf8');
  };
}

/** The files of `-f`: a file, or every .yaml/.yml/.json under a folder (sorted, so plans are stable). */
function readConfigFiles(target: string): Array<{ file: string; text: string }> {
  if (!fs.existsSync(target)) throw new CliError(`${target}: no such file or folder`);
  const files: string[] = [];
  const walk = (p: string) => {
    if (fs.statSync(p).isDirectory()) for (const e of fs.readdirSync(p).sort()) walk(path.join(p, e));
    else if (/\.(ya?ml|json)$/i.test(p)) files.push(p);
  };
  if (fs.statSync(target).isDirectory()) walk(target);
  else files.push(target);
  return files.map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }));
}

/** A 400 from the server, each issue at `file:line` when it points into a document. */
function failure(res: { status: number; json: () => Record<string, unknown>; text: string }, locate: (p: string) => string | null): CliError {
  let body: Record<string, unknown>;
  try {
    body = res.json();
  } catch {
    return new CliError(`the server answered ${res.status}: ${res.text.slice(0, 500)}`);
  }
  const issues = (body.issues as Array<{ path: string; message: string }> | undefined) ?? [];
  if (issues.length) {
    return new CliError(['the plan failed; nothing was written:', ...issues.map((i) => `  ${locate(i.path) ?? i.path}: ${i.path.split('.').slice(2).join('.')} ${i.message}`)].join('\n'));
  }
  const missing = body.missingPerms ? ` (missing permissions: ${(body.missingPerms as string[]).join(', ')})` : '';
  return new CliError(`the server answered ${res.status}: ${String(body.error ?? res.text)}${missing}`);
}

export async function applyCommand(args: string[], env: NodeJS.ProcessEnv = process.env, out: Out = std): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { file: { type: 'string', short: 'f' }, 'dry-run': { type: 'boolean' }, prune: { type: 'boolean' }, source: { type: 'string' } },
    strict: true,
  });
  if (!values.file) throw new CliError('apply needs -f <file|folder>');
  const call = server(env);
  let parsed;
  let documents;
  let resolved: ResolvedReference[];
  try {
    parsed = parseConfigFiles(readConfigFiles(values.file));
    ({ documents, resolved } = resolveSecretReferences(parsed.documents, { env, readFile: fileReader(values.file), where: parsed.locate }));
  } catch (err) {
    if (err instanceof ConfigFileError) throw new CliError(err.message);
    throw err;
  }
  const body = { documents, prune: !!values.prune, ...(values.source ? { source: values.source } : {}) };
  const planned = await call('POST', '/api/config/plan', body);
  if (planned.status !== 200) throw failure(planned, parsed.locate);
  const plan = planned.json() as { changes: Change[]; notCompared?: NotCompared[] };
  const changes = plan.changes;
  out.stdout(formatPlan(changes, plan.notCompared, resolved));
  if (values['dry-run'] || changes.length === 0) return values['dry-run'] && changes.length > 0 ? 2 : 0;
  const applied = await call('POST', '/api/config/apply', body);
  if (applied.status !== 200) throw failure(applied, parsed.locate);
  const done = applied.json().changes as Change[];
  out.stdout(`Applied ${done.length} change${done.length === 1 ? '' : 's'}${values.source ? ` from ${values.source}` : ''}.\n`);
  return 0;
}

/** `rampart export [-o dir]`: stdout, or one file per document `<dir>/<kind>/<name>.yaml`. */
export async function exportCommand(args: string[], env: NodeJS.ProcessEnv = process.env, out: Out = std): Promise<number> {
  const { values } = parseArgs({ args, options: { output: { type: 'string', short: 'o' } }, strict: true });
  const res = await server(env)('GET', '/api/config/export');
  if (res.status !== 200) throw failure(res, () => null);
  if (!values.output) {
    out.stdout(res.text);
    return 0;
  }
  const docs = res.text.split(/^---\n/m).filter((d) => d.trim());
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_');
  for (const d of docs) {
    const { kind, metadata } = parse(d) as { kind: string; metadata: { name: string } };
    const name = metadata.name;
    const dir = path.join(values.output, safe(kind));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${safe(name)}.yaml`), d);
  }
  out.stderr(`Wrote ${docs.length} document${docs.length === 1 ? '' : 's'} under ${values.output}. Set the \${env:…} variables the files reference before applying them.\n`);
  return 0;
}
