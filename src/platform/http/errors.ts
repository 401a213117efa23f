import type { Actor } from '../auth/actor.js';
import { missingPermissions, type Permission } from '../auth/permissions.js';

/**
 * The error family. Each carries its HTTP status and the exact body of the API spec's "Errors" (docs/api.md); the error
 * handler (error-handler.ts) is the one place that turns them into responses.
 */
export interface ValidationIssue {
  path: string;
  message: string;
  code: string;
  location?: 'body' | 'query' | 'params' | 'headers';
}

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
  body(): Record<string, unknown> {
    return { error: this.message, ...this.extra };
  }
}

export class ValidationError extends AppError {
  constructor(readonly issues: ValidationIssue[]) {
    super(400, 'Validation failed', { issues });
  }
  static single(path: string, message: string, code = 'invalid', location: ValidationIssue['location'] = 'body') {
    return new ValidationError([{ path, message, code, location }]);
  }
}

/** A 400 that is not about one field (e.g. "built-in sources cannot be deleted"). */
export class BadRequestError extends AppError {
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Missing or invalid API key') {
    super(401, message, {}, { 'www-authenticate': 'Bearer realm="rampart"' });
  }
}

export class ForbiddenError extends AppError {
  constructor(readonly missingPerms: string[], message = 'Missing required permissions') {
    super(403, message, { missingPerms });
  }
}

export class NotFoundError extends AppError {
  constructor(what = 'Resource') {
    super(404, `${what} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, message);
  }
}

/** 422: the request is well formed but names something that cannot be done (e.g. a rule construct a query language cannot express). */
export class UnprocessableError extends AppError {
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super(422, message, extra);
  }
}

export class GoneError extends AppError {
  constructor(message: string) {
    super(410, message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limit: number) {
    super(413, `Request body is larger than ${limit} bytes`);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(contentType: string) {
    super(415, `Unsupported content type ${JSON.stringify(contentType)}; send application/json`);
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(429, `Rate limit exceeded; retry in ${retryAfterSeconds} s`, {}, { 'retry-after': String(retryAfterSeconds) });
  }
}

/** The database is unreachable (down, restarting, failing over): retry shortly. */
export class ServiceUnavailableError extends AppError {
  constructor(retryAfterSeconds = 5) {
    super(503, 'Service temporarily unavailable: the database is unreachable; retry shortly', {}, { 'retry-after': String(retryAfterSeconds) });
  }
}

/** The one permission helper: throws 403 naming exactly the missing permissions. */
export function requirePermissions(actor: Actor, ...required: Permission[]): void {
  const missing = missingPermissions(actor.permissions, required);
  if (missing.length > 0) throw new ForbiddenError(missing);
}
