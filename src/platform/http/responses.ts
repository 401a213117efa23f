import { z } from 'zod';
import type { $ZodType } from 'zod/v4/core';
import { errorDescriptions, errorSchemaFor } from './error-schemas.js';

/** The answer of a successful DELETE (and similar removals). */
export const DeleteResult = z.object({ success: z.boolean() });

/** Statuses every authenticated operation can answer. */
const AUTHENTICATED = [400, 401, 403, 429, 500, 503];

// Success schemas are typed as Zod's core type: a lazy route's are stand-ins (lazy-schemas.ts).

/**
 * The response map of an authenticated operation: its success schemas plus the error bodies
 * of the API spec's "Errors" (docs/api.md) (400, 401, 403, 429, 500, 503 always; add 404, 409, … as the operation needs).
 */
export function withErrors<T extends Record<number, $ZodType>>(success: T, ...extra: number[]) {
  return addErrors(success, [...AUTHENTICATED, ...extra]);
}

/** The response map of a public operation (no API key): only the errors it can produce. */
export function publicResponses<T extends Record<number, $ZodType>>(success: T, ...extra: number[]) {
  return addErrors(success, [429, 500, 503, ...extra]);
}

function addErrors<T extends Record<number, $ZodType>>(success: T, statuses: number[]) {
  const map: Record<number, $ZodType> = { ...success };
  for (const status of new Set(statuses).values()) {
    map[status] = errorResponse(status);
  }
  return map as T & Record<number, $ZodType>;
}

/**
 * One described error schema per status, shared by every route: building the same schema again
 * for each of ~1,000 responses was ~0.1 s of the API's start (docs/performance.md, start-up).
 * Zod schemas are immutable, so sharing one is safe.
 */
const errorResponses = new Map<number, z.ZodType>();
function errorResponse(status: number): z.ZodType {
  let schema = errorResponses.get(status);
  if (!schema) errorResponses.set(status, (schema = errorSchemaFor(status).describe(errorDescriptions[status] ?? 'Error')));
  return schema;
}
