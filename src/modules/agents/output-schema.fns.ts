import { Ajv, type ErrorObject } from 'ajv';
import { jsonSchema, type Schema } from 'ai';

// A fresh Ajv per compile: Ajv caches every schema it compiles, and agents' schemas are
// unbounded in number; compiling costs well under a millisecond next to a model call.
const newAjv = () => new Ajv({ allErrors: true, strict: false });

function describe(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
}

/**
 * An agent's structured-output JSON Schema as an AI SDK schema that really validates (the SDK's
 * `jsonSchema()` alone accepts any parsed JSON). Throws when the schema itself does not compile.
 */
export function structuredOutputSchema(schema: Record<string, unknown>): Schema<unknown> {
  const validate = newAjv().compile(schema);
  return jsonSchema(schema, {
    validate: (value) => (validate(value) ? { success: true, value } : { success: false, error: new Error(`does not match the schema: ${describe(validate.errors)}`) }),
  });
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
