/**
 * Zod schemas built on first use instead of at import (docs/performance.md, start-up).
 *
 * Building a Zod schema costs per schema object (Zod's constructors, `.describe`, `.meta`,
 * `.extend` clones): at import, every module's schemas were ~20 % of evaluating the API's code,
 * though a start needs none of them and a request needs only its route's. So a schema file
 * exports one memoised factory (`schemaSet`) and a routes file hands Fastify stand-ins for its
 * schemas (`deferred`), which the validator compiler, the serializer compiler and the OpenAPI
 * transform resolve when they first need them. Only those three (and `registeredRoutes`) ever
 * see a stand-in; Zod never does (a schema built from another one calls the other file's
 * factory, so parents and children stay real Zod objects and the registry's ids hold).
 */
import type { $ZodType, input, output } from 'zod/v4/core';

/** A route schema not built yet: what `deferred` hands to Fastify in place of a Zod schema. */
export class DeferredSchema {
  #built: unknown;
  constructor(private readonly build: () => unknown) {}
  get schema(): unknown {
    return (this.#built ??= this.build());
  }
}

/** The schemas a file builds, built once, at the first call. */
export function schemaSet<T extends object>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

/**
 * How a stand-in is typed: a Zod schema as Zod's core sees it (`_zod`, which carries the
 * input and output types the type provider infers), without the classic API. A stand-in is
 * not a Zod object at run time, so `.parse`, `.optional()` or `.extend` on one must not
 * compile: it would fail only when the line first ran.
 */
export type StandIn<S> = S extends $ZodType ? $ZodType<output<S>, input<S>> : S;

/**
 * Stand-ins for a schema set's members, typed as `StandIn`s of the members (so the Zod type
 * provider infers request and reply types as before): `const { A, B } = deferred(set)`.
 * Only for route options; code that parses calls the set itself.
 */
export function deferred<T extends object>(set: () => T): { [K in keyof T]: StandIn<T[K]> } {
  return new Proxy({} as { [K in keyof T]: StandIn<T[K]> }, { get: (_target, key) => later(() => set()[key as keyof T]) });
}

/** One stand-in, typed as a `StandIn` of the schema `build` returns (e.g. a body schema a routes file builds from options). */
export const later = <T>(build: () => T): StandIn<T> => new DeferredSchema(build) as unknown as StandIn<T>;

/** The schema itself, for a stand-in or anything else. */
export const resolveSchema = (schema: unknown): unknown => (schema instanceof DeferredSchema ? schema.schema : schema);

const PARTS = ['params', 'querystring', 'body', 'headers'] as const;

/** A route's `schema` option with its stand-ins resolved (a copy; for the OpenAPI transform). */
export function resolveRouteSchema<T>(schema: T): T {
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = { ...(schema as Record<string, unknown>) };
  for (const part of PARTS) if (out[part] !== undefined) out[part] = resolveSchema(out[part]);
  if (out.response) out.response = resolveResponses(out.response as Record<string, unknown>);
  return out as T;
}

/** A route's response map with its stand-ins resolved. */
export function resolveResponses(responses: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(responses).map(([status, schema]) => [status, resolveSchema(schema)]));
}

/** A validator compiler that compiles a stand-in's schema at the route's first request. */
export function deferringValidatorCompiler<R, O extends { schema: unknown }>(compile: (options: O) => (data: unknown) => R): (options: O) => (data: unknown) => R {
  return (options) => {
    if (!(options.schema instanceof DeferredSchema)) return compile(options);
    const stand = options.schema;
    let compiled: ((data: unknown) => R) | undefined;
    return (data) => (compiled ??= compile({ ...options, schema: stand.schema }))(data);
  };
}
