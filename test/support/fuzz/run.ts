import fc from 'fast-check';
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { invalidArb, resolve, validArb, type Schema, type SchemaContext } from './arbitraries.js';

/**
 * Property-based fuzzing of every operation of the OpenAPI document: generated valid and
 * invalid path params, queries and bodies, sent to the real app. A response is a problem
 * when it is a 5xx, has a status the operation does not document, has a body that does not
 * match the documented schema of its (error) status, or shows a stack trace or SQL.
 */
export interface FuzzOptions {
  app: FastifyInstance;
  apiKey: string;
  /** Ids that must never be generated (the fuzzing user's own key, user and role). */
  protectedIds: string[];
  seed: number;
  budgetMs: number;
  numRunsPerOperation: number;
  /** Only the operations whose path this accepts (default: every operation). */
  only?: (path: string) => boolean;
}

export interface Problem {
  operation: string;
  status: number;
  reason: string;
  request: string;
  response: string;
}

const LEAKS = [
  /\n\s+at .+[(/\\].+:\d+:\d+/, // a stack frame
  /node_modules|\/src\/[a-z/.-]+\.ts/i,
  /syntax error at or near|violates [a-z -]+constraint|relation "[^"]+" does not exist|column "[^"]+" (does not exist|of relation)|invalid input syntax for type|duplicate key value|SQLSTATE|pg_catalog|graphile_worker\._private/i,
];

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export async function fuzzOpenApi(opts: FuzzOptions): Promise<{ problems: Problem[]; requests: number; operations: number }> {
  const doc = (await opts.app.inject({ url: '/api/docs/openapi.json' })).json() as { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, Schema> } };
  const protectedIds = new Set(opts.protectedIds);
  const known = new Set<string>();
  const ctx: SchemaContext = { components: doc.components.schemas, knownIds: () => [...known] };
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
  const validators = new Map<string, ValidateFunction>();
  const problems: Problem[] = [];
  let requests = 0;

  const operations = Object.entries(doc.paths).flatMap(([p, ops]) =>
    METHODS.filter((m) => ops[m] && !p.startsWith('/api/docs') && (opts.only?.(p) ?? true)).map((m) => ({ path: p, method: m, op: ops[m] })),
  );
  const perOpMs = Math.max(200, Math.floor(opts.budgetMs / Math.max(1, operations.length)));

  for (const { path, method, op } of operations) {
    const name = `${method.toUpperCase()} ${path}`;
    const params: any[] = op.parameters ?? [];
    const bodySchema: Schema | undefined = op.requestBody?.content?.['application/json']?.schema;
    const partArb = (valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>) => fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: invalid });
    const paramArb = (where: string) => {
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const p of params.filter((x) => x.in === where)) record[p.name] = partArb(validArb(p.schema ?? {}, ctx), invalidArb(p.schema ?? {}, ctx));
      const required = params.filter((x) => x.in === where && (x.required || where === 'path')).map((x) => x.name);
      return fc.record(record, { requiredKeys: required });
    };
    const requestArb = fc.record({
      path: paramArb('path'),
      query: paramArb('query'),
      body: bodySchema ? partArb(validArb(bodySchema, ctx), invalidArb(bodySchema, ctx)) : fc.constant(undefined),
      auth: fc.constantFrom('key', 'key', 'key', 'key', 'key', 'key', 'key', 'key', 'none', 'bogus'),
    });

    await fc.check(
      fc.asyncProperty(requestArb, async (r) => {
        const url =
          path.replace(/\{([^}]+)\}/g, (_m, k: string) => encodeURIComponent(String((r.path as Record<string, unknown>)[k] ?? 'x'))) +
          queryString(r.query as Record<string, unknown>);
        // An empty path parameter names another route (or none): not this operation's input.
        if (Object.values(r.path as Record<string, unknown>).some((v) => String(v ?? '') === '')) return true;
        if ([...protectedIds].some((id) => url.includes(id) || JSON.stringify(r.body ?? '').includes(id))) return true;
        const headers: Record<string, string> = {};
        if (r.auth === 'key') headers.authorization = `Bearer ${opts.apiKey}`;
        if (r.auth === 'bogus') headers.authorization = 'Bearer rmp_aaaaaaaa_' + 'b'.repeat(43);
        let payload: string | undefined;
        if (r.body !== undefined) {
          headers['content-type'] = 'application/json';
          payload = JSON.stringify(r.body);
        }
        const res = await opts.app.inject({ method: method.toUpperCase() as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
        requests++;
        const text = res.body;
        const problem = (reason: string) =>
          problems.push({ operation: name, status: res.statusCode, reason, request: `${method.toUpperCase()} ${url.slice(0, 200)} ${(payload ?? '').slice(0, 200)}`, response: text.slice(0, 200) });
        const documented = op.responses?.[String(res.statusCode)];
        // 500 is always a bug; 502/504 are allowed where documented (an upstream, e.g. an MCP
        // server the generated config points at, refused or failed), 503 only during outages.
        if (res.statusCode === 500 || res.statusCode === 503 || (res.statusCode > 500 && !documented)) problem('5xx');
        if (LEAKS.some((re) => re.test(text)) && res.statusCode >= 400) problem('leaks internals');
        if (res.statusCode < 300) harvest(text, known, protectedIds);
        if (!documented) problem('status not documented');
        else if (res.statusCode >= 400) {
          const key = `${name} ${res.statusCode}`;
          let validate = validators.get(key);
          if (!validate) {
            const schema = documented.content?.['application/json']?.schema ?? {};
            validate = ajv.compile({ ...resolve(schema, ctx), components: doc.components });
            validators.set(key, validate);
          }
          // A browser step (the OIDC sign-in) documents its refusal as a page (a string), not a JSON error body.
          const htmlOnly = documented.content?.['application/json']?.schema?.type === 'string';
          let body: unknown = null;
          if (htmlOnly) {
            if (!String(res.headers['content-type'] ?? '').startsWith('text/html')) problem('error page is not HTML');
          } else {
            try {
              body = JSON.parse(text);
            } catch {
              problem('error body is not JSON');
            }
          }
          if (body !== null && !validate(body)) problem(`error body does not match the documented schema: ${ajv.errorsText(validate.errors)}`);
        }
        return true;
      }),
      { seed: opts.seed, numRuns: opts.numRunsPerOperation, interruptAfterTimeLimit: perOpMs, markInterruptAsFailure: false, endOnFailure: true },
    );
  }
  return { problems, requests, operations: operations.length };
}

function queryString(q: Record<string, unknown>): string {
  const entries = Object.entries(q).filter(([, v]) => v !== undefined);
  if (!entries.length) return '';
  return '?' + entries.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&');
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

function harvest(text: string, known: Set<string>, protectedIds: Set<string>): void {
  for (const id of text.match(UUID) ?? []) {
    if (known.size >= 200) return;
    if (!protectedIds.has(id)) known.add(id);
  }
}
