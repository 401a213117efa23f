import fastJsonStringify from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { z } from 'zod';
import { DeferredSchema } from './lazy-schemas.js';

/**
 * Response serialization from the route's Zod response schema, compiled once to a
 * fast-json-stringify function. The compiled function writes only the properties the schema
 * declares, so the response schema is also the filter that keeps stored secrets out of replies.
 *
 * Measured while choosing the stack: validating every reply with Zod costs ~35% of the
 * throughput of a 20-element list. Unions cost too: fast-json-stringify picks an anyOf/oneOf
 * branch by running ajv on every value, so unions are merged for serialization (object
 * variants into one object with the union of their properties, primitives into a type list).
 * The filter stays: a property no variant declares is still never written.
 */
export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema: declared }) => {
  // A schema built on first use (platform/http/lazy-schemas.ts) is built at the first reply too.
  if (declared instanceof DeferredSchema) return deferredSerializer(declared);
  const schema = declared;
  if (!(schema instanceof z.ZodType)) return (data) => JSON.stringify(data);
  // Compiled at the route's first reply, not at start-up: Fastify asks for every route's
  // serializer when the app becomes ready, and compiling them all there (Zod → JSON Schema →
  // fast-json-stringify, a new ajv each) was most of the API's start-up CPU (docs/performance.md).
  let compiled: ((data: unknown) => string) | null = null;
  return (data) => (data instanceof SerializedJson ? data.json : (compiled ??= compileSerializer(schema))(data));
};

function deferredSerializer(declared: DeferredSchema): (data: unknown) => string {
  let serialize: ((data: unknown) => string) | null = null;
  return (data) => (serialize ??= serializerCompiler({ schema: declared.schema } as Parameters<typeof serializerCompiler>[0]))(data);
}

/**
 * A response body a route has already serialized with its own response schema's serializer
 * (`compileSerializer` of the same schema), e.g. kept per cache entry: the route's serializer
 * writes it as is. Only for routes with a Zod response schema (any other route would
 * JSON.stringify the wrapper).
 */
export class SerializedJson {
  constructor(readonly json: string) {}
}

/** `json` as a route handler's typed result (see SerializedJson). */
export const serializedAs = <T>(json: string): T => new SerializedJson(json) as unknown as T;

/** The fast-json-stringify function for one Zod response schema. */
export function compileSerializer(schema: z.ZodType): (data: unknown) => string {
  const json = z.toJSONSchema(schema, { target: 'draft-07', io: 'output', unrepresentable: 'any' }) as Schema;
  return fastJsonStringify(forSerialization(json, json.definitions ?? {}) as Parameters<typeof fastJsonStringify>[0]);
}

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  additionalProperties?: boolean | Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  $ref?: string;
  definitions?: Record<string, Schema>;
};

// Only what shapes the output matters; validation keywords (pattern, format, enum…) are dropped.
export function forSerialization(node: Schema, defs: Record<string, Schema>, depth = 0): Schema {
  if (depth > 32) return {};
  if (node.$ref) {
    const target = defs[node.$ref.split('/').pop() ?? ''];
    return target ? forSerialization(target, defs, depth + 1) : {};
  }
  const branches = node.anyOf ?? node.oneOf;
  if (branches) return mergeBranches(branches.map((b) => forSerialization(b, defs, depth + 1)));
  const out: Schema = {};
  if (node.type !== undefined) out.type = node.type;
  if (node.properties) {
    out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, forSerialization(v, defs, depth + 1)]));
  }
  if (node.required) out.required = node.required;
  if (node.items) out.items = forSerialization(node.items, defs, depth + 1);
  if (typeof node.additionalProperties === 'object') out.additionalProperties = forSerialization(node.additionalProperties, defs, depth + 1);
  else if (node.additionalProperties === true || (node.type === 'object' && !node.properties)) out.additionalProperties = true;
  return out;
}

function mergeBranches(branches: Schema[]): Schema {
  if (branches.length === 1) return branches[0]!;
  if (branches.every((b) => b.type === 'object' && b.properties)) {
    const properties: Record<string, Schema[]> = {};
    for (const b of branches) for (const [k, v] of Object.entries(b.properties!)) (properties[k] ??= []).push(v);
    const required = branches.map((b) => new Set(b.required ?? [])).reduce((a, b) => new Set([...a].filter((k) => b.has(k))));
    return {
      type: 'object',
      properties: Object.fromEntries(Object.entries(properties).map(([k, vs]) => [k, mergeBranches(vs)])),
      required: [...required],
    };
  }
  const simple = branches.every((b) => typeof b.type === 'string' && b.type !== 'object' && b.type !== 'array');
  if (simple) return { type: [...new Set(branches.map((b) => b.type as string))] };
  if (branches.every((b) => b.type === 'array')) return { type: 'array', items: mergeBranches(branches.map((b) => b.items ?? {})) };
  // Mixed shapes: serialize as any JSON value.
  return {};
}
