import { z } from 'zod';
import { API_VERSION, Metadata, type Kind } from './config.schemas.js';
import type { KindHandler } from './kinds/kind.js';

/**
 * The JSON Schema of configuration files (`/api/docs/config.schema.json`), generated from the
 * same Zod schemas the API validates with: one `oneOf` branch per kind, `kind` as the
 * discriminator, so editors validate specs as people type. Secret fields also accept the
 * `${env:NAME}` / `${file:/path}` references `rampart apply` resolves.
 */

/** An object schema without `property` (a destination's name comes from `metadata.name`). */
function withoutProperty(schema: unknown, property: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withoutProperty(s, property));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = withoutProperty(v, property);
  const props = out.properties as Record<string, unknown> | undefined;
  if (props && property in props && out.type === 'object') {
    const { [property]: _dropped, ...rest } = props;
    out.properties = rest;
    if (Array.isArray(out.required)) out.required = out.required.filter((r) => r !== property);
  }
  return out;
}

function specSchema(h: KindHandler): unknown {
  const json = z.toJSONSchema(h.schema, { io: 'input', unrepresentable: 'any' });
  const { $schema: _s, ...rest } = json as Record<string, unknown>;
  return h.kind === ('OutputDestination' satisfies Kind) ? withoutProperty(rest, 'name') : rest;
}

export function configJsonSchema(kinds: readonly KindHandler[]): Record<string, unknown> {
  const metadata = z.toJSONSchema(Metadata, { io: 'input' });
  delete (metadata as Record<string, unknown>).$schema;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://rampart.dev/schemas/config/v1.json',
    title: 'Rampart configuration document',
    description: `A document of \`rampart apply\`: apiVersion ${API_VERSION}, a kind, metadata.name and the kind's spec (docs/agents-as-code.md).`,
    type: 'object',
    required: ['apiVersion', 'kind', 'metadata', 'spec'],
    oneOf: kinds.map((h) => ({
      properties: {
        apiVersion: { const: API_VERSION },
        kind: { const: h.kind },
        metadata,
        spec: specSchema(h),
      },
      additionalProperties: false,
    })),
  };
}
