import { z } from 'zod';
import { ValidationErrorBody } from '../../platform/http/error-schemas.js';
import { MAX_PAGE } from './taxii.service.js';

const stixTimestamp = z.iso.datetime({ offset: true });

export const TaxiiObjectsQuery = z.object({
  added_after: stixTimestamp.optional().describe('Objects added at or after this time (inclusive; pass the previous page\'s X-TAXII-Date-Added-Last)'),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).optional().describe(`Objects per page, 1..${MAX_PAGE} (default 1000)`),
  next: z.string().min(1).max(200).optional().describe('The `next` of the previous page'),
  'match[type]': z.string().max(1000).optional().describe('Comma-separated STIX types (this server holds `indicator`)'),
  'match[id]': z.string().max(20_000).optional().describe('Comma-separated STIX ids'),
  'match[version]': z.string().max(20_000).optional().describe('`last` (default), `first`, `all`, or comma-separated `modified` timestamps'),
  'match[spec_version]': z.string().max(100).optional().describe('`2.1`'),
});

export const CollectionParams = z.object({ collectionId: z.string().min(1).max(100) });
export const ObjectParams = CollectionParams.extend({ objectId: z.string().min(1).max(200) });

export const TaxiiError = z
  .object({
    title: z.string(),
    description: z.string().optional(),
    http_status: z.string(),
    error: z.string().describe('The same message, as every Rampart error carries it'),
    missingPerms: z.array(z.string()).optional(),
    issues: z.array(z.unknown()).optional(),
  })
  .meta({ id: 'TaxiiError', description: 'A TAXII 2.1 error message (with Rampart\'s `error`, `missingPerms`, `issues`)' });

const CollectionSchema = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  can_read: z.boolean(),
  can_write: z.boolean(),
  media_types: z.array(z.string()),
});

export const Discovery = z.object({ title: z.string(), description: z.string(), default: z.string(), api_roots: z.array(z.string()) });
export const ApiRoot = z.object({ title: z.string(), description: z.string(), versions: z.array(z.string()), max_content_length: z.number().int() });
export const Collections = z.object({ collections: z.array(CollectionSchema) });
export const Collection = CollectionSchema;
export const Envelope = z.object({ more: z.boolean(), next: z.string().optional(), objects: z.array(z.record(z.string(), z.unknown())) }).describe('STIX 2.1 objects (served as application/taxii+json;version=2.1)');
export const Manifest = z.object({
  more: z.boolean(),
  next: z.string().optional(),
  objects: z.array(z.object({ id: z.string(), date_added: z.string(), version: z.string(), media_type: z.string() })),
});
export const Versions = z.object({ more: z.boolean(), versions: z.array(z.string()) });

/** TAXII answers every error with a TAXII error message; 406 when the Accept header is not TAXII 2.1. */
export function taxiiResponses<T extends Record<number, z.ZodType>>(success: T, ...extra: number[]) {
  const map: Record<number, z.ZodType> = { ...success };
  for (const status of [401, 403, 406, 429, 500, 503, ...extra]) map[status] = TaxiiError;
  // A path the router cannot take apart (too long, bad percent-encoding) is refused before any
  // TAXII route runs, with Rampart's own body.
  map[400] = TaxiiError.or(ValidationErrorBody);
  return map as T & Record<number, z.ZodType>;
}
