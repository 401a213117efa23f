import { z } from 'zod';

/** Error bodies of the API spec's "Errors" (docs/api.md), named so the OpenAPI document shows them once and refers to them. */
export const ErrorBody = z
  .object({ error: z.string().describe('What went wrong, for a person to read') })
  .meta({ id: 'Error', description: 'An error. 404 bodies never reveal whether an id exists in another organization.' });

export const ValidationIssueSchema = z
  .object({
    path: z.string().describe('Dotted path of the failing field inside `location`, e.g. `config.url`; empty for the whole value'),
    message: z.string(),
    code: z.string().describe('Machine-readable reason, e.g. `invalid_type`, `too_small`, `invalid_json`'),
    location: z.enum(['body', 'query', 'params', 'headers']).optional(),
  })
  .meta({ id: 'ValidationIssue' });

export const ValidationErrorBody = z
  .object({ error: z.literal('Validation failed'), issues: z.array(ValidationIssueSchema) })
  .meta({ id: 'ValidationError', description: 'Invalid input: one issue per failed field.' });

export const ForbiddenErrorBody = z
  .object({
    error: z.string(),
    missingPerms: z.array(z.string()).describe('Exactly the permissions the key\'s role lacks for this operation'),
  })
  .meta({ id: 'ForbiddenError' });

export const UnprocessableErrorBody = z
  .object({
    error: z.string(),
    construct: z.string().optional().describe('What cannot be done, by name: a Sigma construct the engine or the target refuses (`correlation`, `keywords`), `pipeline <name>`, `format <name>`'),
    line: z.number().int().nullable().optional().describe('The line of the Sigma text the refused construct is on, when known'),
    pipelines: z.array(z.string()).optional().describe('For an unknown pipeline: the valid ones for the target'),
  })
  .meta({ id: 'UnprocessableError' });

export const errorDescriptions: Record<number, string> = {
  400: 'Invalid input or malformed request',
  401: 'Missing, invalid, expired or revoked API key, or deactivated user (`WWW-Authenticate: Bearer`)',
  403: 'The key\'s role lacks a permission',
  404: 'Not found (also for ids that belong to another organization)',
  409: 'Conflict with the current state',
  410: 'The endpoint passed its sunset date; the message names the replacement',
  413: 'Request body too large',
  422: 'Understood but not possible: the message names the construct (e.g. a Sigma modifier the query language cannot express)',
  415: 'Unsupported content type',
  429: 'Rate limit exceeded (`Retry-After` header, seconds)',
  503: 'Service unavailable: the database is unreachable (restarting, failing over) or, for /readyz, migrations are pending; `Retry-After` header (seconds) on API operations',
  500: 'Internal server error (never shows internals; the `x-request-id` response header identifies the request in the logs)',
};

export function errorSchemaFor(status: number): z.ZodType {
  if (status === 400) return ValidationErrorBody.or(ErrorBody);
  if (status === 403) return ForbiddenErrorBody;
  if (status === 422) return UnprocessableErrorBody;
  return ErrorBody;
}
