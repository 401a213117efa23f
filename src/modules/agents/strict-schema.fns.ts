/**
 * OpenAI's strict structured output (`strict: true`, which the OpenAI and OpenAI-compatible SDK
 * providers send by default) accepts a subset of JSON Schema: every object lists all its
 * properties in `required` and has `additionalProperties: false`, the root is an object, and
 * a handful of keywords are refused. An agent's schema is made to fit when that keeps its
 * meaning (an optional property becomes required and nullable; the nulls are dropped again
 * before the answer is validated against the agent's own schema), else it is sent non-strict.
 */

type Node = Record<string, unknown>;

/** Keywords strict mode refuses (OpenAI "Supported schemas"), which no rewrite can express. */
const UNSUPPORTED = [
  'allOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'dependencies',
  'patternProperties', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'contains', 'minContains',
  'maxContains', 'uniqueItems', 'minProperties', 'maxProperties', 'minLength', 'maxLength', 'prefixItems',
] as const;

export type StrictSchema = { ok: true; schema: Node } | { ok: false; reason: string };

const isNode = (v: unknown): v is Node => v !== null && typeof v === 'object' && !Array.isArray(v);
const typesOf = (n: Node): string[] => (Array.isArray(n.type) ? (n.type as string[]) : typeof n.type === 'string' ? [n.type] : []);

class NotStrict extends Error {}

/** The schema rewritten for strict mode, or why it cannot be. Pure; the input is not changed. */
export function toStrictSchema(schema: Node): StrictSchema {
  if (Array.isArray(schema.anyOf) || typesOf(schema).join() !== 'object') return { ok: false, reason: 'the root must be a plain "type": "object"' };
  try {
    return { ok: true, schema: rewrite(schema, '') };
  } catch (err) {
    if (err instanceof NotStrict) return { ok: false, reason: err.message };
    throw err;
  }
}

function rewrite(node: Node, path: string): Node {
  const bad = UNSUPPORTED.find((k) => k in node);
  if (bad) throw new NotStrict(`"${bad}" at ${path || '/'} is not supported in strict mode`);
  const out: Node = { ...node };
  // An enum of strings without a type (as in `{"enum": ["benign", "malicious"]}`) gets one.
  if (!('type' in out) && Array.isArray(out.enum) && out.enum.every((v) => typeof v === 'string')) out.type = 'string';

  if (typesOf(out).includes('object')) {
    const props = isNode(out.properties) ? out.properties : {};
    if (out.additionalProperties !== undefined && out.additionalProperties !== false) {
      throw new NotStrict(`the object at ${path || '/'} allows additional properties, which strict mode cannot express`);
    }
    if (!Object.keys(props).length && !isNode(out.properties) && out.additionalProperties !== false) {
      throw new NotStrict(`the object at ${path || '/'} has no "properties" (a free-form object), which strict mode cannot express`);
    }
    const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
    out.properties = Object.fromEntries(
      Object.entries(props).map(([k, v]) => {
        if (!isNode(v)) throw new NotStrict(`the property ${path}/properties/${k} is not a schema object`);
        const strict = rewrite(v, `${path}/properties/${k}`);
        return [k, required.has(k) ? strict : nullable(strict)];
      }),
    );
    // The agent's own required names first, in its order (stored schemas come back with keys reordered).
    out.required = [...[...required].filter((k) => k in props), ...Object.keys(props).filter((k) => !required.has(k))];
    out.additionalProperties = false;
  }
  if (isNode(out.items)) out.items = rewrite(out.items, `${path}/items`);
  else if (out.items !== undefined) throw new NotStrict(`"items" at ${path || '/'} must be a single schema in strict mode`);
  if (Array.isArray(out.anyOf)) out.anyOf = out.anyOf.map((s, i) => (isNode(s) ? rewrite(s, `${path}/anyOf/${i}`) : s));
  for (const defs of ['$defs', 'definitions'] as const) {
    if (isNode(out[defs])) out[defs] = Object.fromEntries(Object.entries(out[defs]).map(([k, v]) => [k, isNode(v) ? rewrite(v, `${path}/${defs}/${k}`) : v]));
  }
  return out;
}

/** The same schema, also accepting null. */
function nullable(node: Node): Node {
  const types = typesOf(node);
  if (types.length && !('$ref' in node) && !Array.isArray(node.anyOf)) {
    const out: Node = { ...node, type: types.includes('null') ? node.type : [...types, 'null'] };
    if (Array.isArray(node.enum) && !node.enum.includes(null)) out.enum = [...node.enum, null];
    return out;
  }
  if (Array.isArray(node.anyOf)) return node.anyOf.some((s) => isNode(s) && typesOf(s).includes('null')) ? node : { ...node, anyOf: [...node.anyOf, { type: 'null' }] };
  return { anyOf: [node, { type: 'null' }] };
}

/**
 * Drops the nulls strict mode made the model write for properties the agent's own schema has
 * as optional (and not nullable), so the answer validates against that schema. Returns a copy.
 */
export function dropStrictNulls(value: unknown, schema: Node, root: Node = schema): unknown {
  const node = resolveRef(schema, root);
  if (Array.isArray(value)) return isNode(node.items) ? value.map((v) => dropStrictNulls(v, node.items as Node, root)) : value;
  if (!isNode(value)) return value;
  const branches = [node, ...(Array.isArray(node.anyOf) ? node.anyOf.filter(isNode).map((b) => resolveRef(b, root)) : [])];
  const out: Node = { ...value };
  for (const branch of branches) {
    const props = isNode(branch.properties) ? branch.properties : {};
    const required = new Set(Array.isArray(branch.required) ? (branch.required as string[]) : []);
    for (const [k, sub] of Object.entries(props)) {
      if (!(k in out) || !isNode(sub)) continue;
      if (out[k] === null && !required.has(k) && !allowsNull(resolveRef(sub, root))) delete out[k];
      else out[k] = dropStrictNulls(out[k], sub, root);
    }
  }
  return out;
}

function allowsNull(node: Node): boolean {
  return typesOf(node).includes('null') || (Array.isArray(node.enum) && node.enum.includes(null)) || node.const === null || (Array.isArray(node.anyOf) && node.anyOf.some((s) => isNode(s) && allowsNull(s)));
}

/** Local references only (`#/$defs/x`, `#/definitions/x`), as strict mode allows. */
function resolveRef(node: Node, root: Node): Node {
  const ref = node.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return node;
  const target = ref
    .slice(2)
    .split('/')
    .reduce<unknown>((v, k) => (isNode(v) ? v[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), root);
  return isNode(target) ? target : node;
}
