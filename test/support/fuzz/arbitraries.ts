import fc from 'fast-check';

/**
 * JSON Schema (as the OpenAPI document has it) → fast-check arbitraries: `valid` produces
 * values the schema accepts (as far as generation can tell), `invalid` values it should
 * refuse or that are hostile (wrong types, unknown fields, odd strings).
 */
export type Schema = Record<string, any>;

export interface SchemaContext {
  components: Record<string, Schema>;
  /** Ids seen in earlier responses: path and body uuids sometimes name real rows. */
  knownIds: () => string[];
}

/** Strings that have broken services before: kept small so a run stays fast. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  "' OR 1=1 --",
  '"; DROP TABLE users; --',
  '%00',
  '../../etc/passwd',
  '${jndi:ldap://x}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  '\u202e\u200b',
  '😀'.repeat(3),
  'a'.repeat(10_000),
  '-1',
  '1e309',
  'NaN',
  'null',
  '00000000-0000-0000-0000-000000000000',
  'http://169.254.169.254/latest/meta-data/',
  'http://[::1]/',
  'file:///etc/passwd',
];

const URLS = ['https://example.invalid/hook', 'http://127.0.0.1:9/x', 'https://10.0.0.1/a', 'http://localhost/', 'ftp://x.invalid/'];

export function resolve(schema: Schema, ctx: SchemaContext, depth = 0): Schema {
  if (schema?.$ref && depth < 20) {
    const name = String(schema.$ref).split('/').pop()!;
    return resolve(ctx.components[name] ?? {}, ctx, depth + 1);
  }
  return schema ?? {};
}

export function validArb(raw: Schema, ctx: SchemaContext, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(raw, ctx);
  if (depth > 6) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) return fc.oneof(...alternatives.map((s: Schema) => validArb(s, ctx, depth + 1)));
  if (Array.isArray(schema.allOf)) {
    const merged = schema.allOf.map((s: Schema) => resolve(s, ctx)).reduce((a: Schema, b: Schema) => ({ ...a, ...b, properties: { ...a.properties, ...b.properties }, required: [...(a.required ?? []), ...(b.required ?? [])] }), {});
    return validArb(merged, ctx, depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -1000, -1e9), max: Math.min(schema.maximum ?? 1000, 1e9) });
    case 'number':
      return fc.double({ min: Math.max(schema.minimum ?? -1000, -1e9), max: Math.min(schema.maximum ?? 1000, 1e9), noNaN: true });
    case 'string':
      return stringArb(schema, ctx);
    case 'array': {
      const min = schema.minItems ?? 0;
      return fc.array(validArb(schema.items ?? {}, ctx, depth + 1), { minLength: min, maxLength: Math.min(schema.maxItems ?? 4, min + 4) });
    }
    case 'object':
    default: {
      const props: Record<string, Schema> = schema.properties ?? {};
      if (Object.keys(props).length === 0) {
        if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
          return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), validArb(schema.additionalProperties, ctx, depth + 1), { maxKeys: 3 });
        }
        return type === 'object' ? fc.constant({}) : fc.oneof(fc.constant('x'), fc.integer(), fc.constant({}));
      }
      const required = new Set<string>(schema.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) record[k] = validArb(v, ctx, depth + 1);
      return fc.record(record, { requiredKeys: Object.keys(props).filter((k) => required.has(k)) });
    }
  }
}

function stringArb(schema: Schema, ctx: SchemaContext): fc.Arbitrary<string> {
  const maxLength = Math.min(schema.maxLength ?? 40, 80);
  const minLength = Math.min(schema.minLength ?? 0, maxLength);
  if (schema.format === 'uuid') {
    const known = ctx.knownIds();
    return known.length ? fc.oneof(fc.uuid(), fc.constantFrom(...known)) : fc.uuid();
  }
  if (schema.format === 'uri') return fc.constantFrom(...URLS);
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'date-time') return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity));
    } catch {
      /* a pattern fast-check cannot generate from: fall through */
    }
  }
  return fc.string({ minLength, maxLength });
}

/** Hostile or wrong values for a schema: wrong types, unknown fields, odd strings. */
export function invalidArb(raw: Schema, ctx: SchemaContext, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(raw, ctx);
  const anything = fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 63), [], {}, [[[]]]),
    fc.string({ maxLength: 30 }),
    fc.jsonValue({ maxDepth: 3 }),
  );
  if (depth > 3) return anything;
  const props: Record<string, Schema> = schema.properties ?? {};
  if (Object.keys(props).length > 0) {
    // A valid object with one field broken or one unknown field added.
    return fc
      .tuple(validArb(schema, ctx, depth) as fc.Arbitrary<Record<string, unknown>>, fc.constantFrom(...Object.keys(props), '__proto__', 'unknownField'), fc.oneof(anything, invalidArb({}, ctx, depth + 1)))
      .map(([base, key, value]) => {
        const out = { ...(typeof base === 'object' && base ? base : {}) };
        Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
        return out;
      });
  }
  return anything;
}
