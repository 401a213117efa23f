/*
 * OpenAI's strict-mode rules for JSON schemas (Structured Outputs, "Supported schemas"), as the
 * real API enforces them when a request sends `strict: true`: the root is an object (not
 * `anyOf`); every object has `additionalProperties: false` and lists every property in
 * `required`; the keywords below are refused. Messages are shaped like the API's
 * ("Invalid schema for response_format 'name': In context=(…), …").
 */

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => v !== null && typeof v === 'object' && !Array.isArray(v);

const NOT_PERMITTED = [
  'allOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'dependencies', 'patternProperties',
  'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'contains', 'minContains', 'maxContains', 'uniqueItems',
  'minProperties', 'maxProperties', 'minLength', 'maxLength', 'prefixItems',
];

/** The first rule the schema breaks, as the API words it, or null when strict mode accepts it. */
export function strictSchemaError(schema: unknown, what: string): string | null {
  const fail = (context: string[], message: string) => `Invalid schema for ${what}: In context=(${context.map((c) => `'${c}'`).join(', ')}), ${message}`;
  if (!isNode(schema)) return fail([], 'schema must be a JSON Schema of \'type: "object"\', got \'type: "None"\'.');
  if (schema.type !== 'object' || 'anyOf' in schema) return fail([], `schema must be a JSON Schema of 'type: "object"', got 'type: "${String(schema.type ?? 'None')}"'.`);

  const check = (node: Node, context: string[]): string | null => {
    const bad = NOT_PERMITTED.find((k) => k in node);
    if (bad) return fail(context, `'${bad}' is not permitted.`);
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (!('type' in node) && !('$ref' in node) && !('anyOf' in node) && !('enum' in node) && !('const' in node)) {
      return fail(context, 'schema must have a \'type\' key.');
    }
    if (types.includes('object')) {
      if (node.additionalProperties !== false) return fail(context, '\'additionalProperties\' is required to be supplied and to be false.');
      const keys = Object.keys(isNode(node.properties) ? node.properties : {});
      const required = Array.isArray(node.required) ? node.required : [];
      const missing = keys.find((k) => !required.includes(k));
      if (missing !== undefined) return fail(context, `'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`);
      for (const k of keys) {
        const sub = (node.properties as Node)[k];
        const err = isNode(sub) ? check(sub, [...context, 'properties', k]) : fail([...context, 'properties', k], 'schema must be an object.');
        if (err) return err;
      }
    }
    const children: Array<[unknown, string[]]> = [[node.items, [...context, 'items']]];
    if (Array.isArray(node.anyOf)) node.anyOf.forEach((s, i) => children.push([s, [...context, 'anyOf', String(i)]]));
    for (const defs of ['$defs', 'definitions']) {
      if (isNode(node[defs])) for (const [k, s] of Object.entries(node[defs] as Node)) children.push([s, [...context, defs, k]]);
    }
    for (const [sub, ctx] of children) {
      const err = isNode(sub) ? check(sub, ctx) : null;
      if (err) return err;
    }
    return null;
  };
  return check(schema, []);
}

/** Every schema a Chat Completions or Responses request sends with `strict: true`, checked. */
export function strictRequestError(body: Record<string, unknown>): { message: string; param: string } | null {
  const rf = body.response_format as { json_schema?: { name?: string; schema?: unknown; strict?: boolean } } | undefined;
  if (rf?.json_schema?.strict === true) {
    const message = strictSchemaError(rf.json_schema.schema, `response_format '${rf.json_schema.name ?? 'response'}'`);
    if (message) return { message, param: 'response_format' };
  }
  const format = (body.text as { format?: { name?: string; schema?: unknown; strict?: boolean } } | undefined)?.format;
  if (format?.strict === true) {
    const message = strictSchemaError(format.schema, `text.format '${format.name ?? 'response'}'`);
    if (message) return { message, param: 'text.format.schema' };
  }
  for (const tool of (body.tools as Array<Record<string, unknown>> | undefined) ?? []) {
    const fn = (tool.function ?? tool) as { name?: string; parameters?: unknown; strict?: boolean };
    if (fn.strict !== true) continue;
    const message = strictSchemaError(fn.parameters, `function '${fn.name ?? ''}'`);
    if (message) return { message, param: 'tools' };
  }
  return null;
}
