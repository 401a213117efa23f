import { Ajv, type ErrorObject } from 'ajv';
import type { Schema } from 'ai';
import { aiSdk } from '../../platform/ai-sdk.js';
import { dropStrictNulls, toStrictSchema } from './strict-schema.fns.js';

// A fresh Ajv per compile: Ajv caches every schema it compiles, and agents' schemas are
// unbounded in number; compiling costs well under a millisecond next to a model call.
const newAjv = () => new Ajv({ allErrors: true, strict: false });

function describe(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
}

/**
 * An agent's structured-output JSON Schema as an AI SDK schema that really validates (the SDK's
 * `jsonSchema()` alone accepts any parsed JSON). Throws when the schema itself does not compile.
 *
 * `strictProvider`: the model's provider sends schemas in OpenAI's strict mode. The schema is
 * then sent rewritten for it (see strict-schema.fns.ts) and the answer, with the nulls strict
 * mode made the model write removed, is validated against the agent's own schema; `strict` is
 * false when the schema cannot be rewritten, and the caller must turn strict mode off.
 * Called within a run, after loadAiSdk().
 */
export function structuredOutputSchema(schema: Record<string, unknown>, strictProvider = false): { schema: Schema<unknown>; strict: boolean } {
  const validate = newAjv().compile(schema);
  const strict = strictProvider ? toStrictSchema(schema) : null;
  const sent = strict?.ok ? strict.schema : schema;
  return {
    strict: strict?.ok ?? false,
    schema: aiSdk().jsonSchema(sent, {
      validate: (raw) => {
        const value = strict?.ok ? dropStrictNulls(raw, schema) : raw;
        return validate(value) ? { success: true, value } : { success: false, error: new Error(`does not match the schema: ${describe(validate.errors)}`) };
      },
    }),
  };
}

/** What an agent's response warns about its schema: strict mode impossible (said at creation, since the alias resolves at run time). */
export function outputSchemaWarnings(schema: Record<string, unknown> | null): string[] {
  if (!schema) return [];
  const strict = toStrictSchema(schema);
  if (strict.ok) return [];
  return [
    `structuredOutputSchema cannot be sent in OpenAI strict mode (${strict.reason}): with an openai or openai-compatible model it is sent with strict: false, ` +
      'so the model is not held to it while it writes (the answer is still validated against it).',
  ];
}

/** The message a broken schema gives, for the agent API (checked when it is saved). */
export function schemaCompileError(schema: Record<string, unknown>): string | null {
  try {
    newAjv().compile(schema);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
