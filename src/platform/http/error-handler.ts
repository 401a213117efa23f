import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isDatabaseUnavailable } from '../db/errors.js';
import { databaseHealth, noteDatabaseAnswered, noteDatabaseUnavailable } from '../db/health.js';
import { AppError, NotFoundError, PayloadTooLargeError, ServiceUnavailableError, UnsupportedMediaTypeError, ValidationError, type ValidationIssue } from './errors.js';

const LOCATION: Record<string, ValidationIssue['location']> = {
  body: 'body',
  querystring: 'query',
  params: 'params',
  headers: 'headers',
};

/** The one place where errors become HTTP responses (the API spec's "Errors"; docs/api.md). */
export function installErrorHandling(app: FastifyInstance, opts: { bodyLimit: number }): void {
  // JSON routes take JSON only: without Fastify's default text/plain parser, a text body is 415
  // (what it is), not a 400 about the body's shape. Webhook intake has parsers of its own.
  app.removeContentTypeParser('text/plain');
  // The end of an outage: the first API request answered without a server error after it began.
  app.addHook('onResponse', async (request, reply) => {
    if (databaseHealth.down && reply.statusCode < 500 && request.url.startsWith('/api/')) noteDatabaseAnswered(request.log);
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    const appError = toAppError(err, opts.bodyLimit, request);
    // The client is still sending the body we refuse: closing now would make its TCP stack
    // answer our 413 with a reset, and the client would see "connection reset" instead. Read
    // and discard the rest (bounded in bytes and time), then answer and close.
    if (appError instanceof PayloadTooLargeError) {
      return drainRequest(request.raw, DRAIN_MAX_BYTES, DRAIN_MAX_MS).then(() => {
        reply.header('connection', 'close');
        return send(reply, appError);
      });
    }
    if (appError) return send(reply, appError);
    if (isDatabaseUnavailable(err)) {
      // An outage, not a bug: one line when it starts (health.ts), and an answer clients know to retry.
      noteDatabaseUnavailable(request.log, { message: err.message, code: err.code });
      return send(reply, new ServiceUnavailableError());
    }
    // Anything else is a bug or an outage: log it whole, answer without internals.
    request.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ error: 'Internal server error' });
  });

  app.setNotFoundHandler((request: FastifyRequest, reply) => {
    send(reply, new AppError(404, `Route ${request.method} ${request.url.split('?')[0]} not found`));
  });
}

/** How much of a refused body we read and discard before answering 413 (then we close). */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
export const DRAIN_MAX_MS = 10_000;

function drainRequest(raw: IncomingMessage, maxBytes: number, maxMs: number): Promise<void> {
  if (raw.complete || raw.readableEnded || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const finish = () => {
      clearTimeout(timer);
      raw.off('data', onData).off('end', finish).off('error', finish).off('close', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) {
        raw.pause();
        finish();
      }
    };
    const timer = setTimeout(finish, maxMs);
    raw.on('data', onData).on('end', finish).on('error', finish).on('close', finish);
    raw.resume();
  });
}

function send(reply: FastifyReply, err: AppError) {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.statusCode).send(err.body());
}

export function toAppError(err: FastifyError, bodyLimit: number, request: FastifyRequest): AppError | null {
  if (err instanceof AppError) return err;
  if (hasZodFastifySchemaValidationErrors(err)) {
    const location = LOCATION[(err as FastifyError & { validationContext?: string }).validationContext ?? 'body'] ?? 'body';
    return new ValidationError(
      err.validation.flatMap((v) => {
        const path = v.instancePath.replace(/^\//, '').replaceAll('/', '.');
        // One issue per unknown field, named by its own path.
        const keys = (v.params as { keys?: unknown }).keys;
        if (v.keyword === 'unrecognized_keys' && Array.isArray(keys)) {
          return keys.map((k) => ({ path: path ? `${path}.${String(k)}` : String(k), message: 'Unknown field', code: v.keyword, location }));
        }
        return [{ path, message: v.message ?? 'Invalid value', code: v.keyword, location }];
      }),
    );
  }
  // PostgreSQL data exceptions (class 22: invalid text representation, unstorable characters,
  // out-of-range numbers…) are bad input that reached a query: 400, never 500.
  if (typeof err.code === 'string' && /^22[0-9A-Z]{3}$/.test(err.code) && 'severity' in err) {
    return ValidationError.single('', 'The request holds a value the database cannot accept; check ids, numbers and text for invalid characters', 'invalid_value');
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return ValidationError.single('', `Malformed JSON body: ${err.message.replace(/^.*?: /, '')}`, 'invalid_json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return ValidationError.single('', 'Body cannot be empty when content-type is application/json', 'invalid_json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLargeError(bodyLimit);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? new UnsupportedMediaTypeError(String(request.headers['content-type'] ?? err.message.match(/'([^']*)'/)?.[1] ?? 'unknown').split(';')[0]!.trim().slice(0, 100))
        : ValidationError.single('', 'Invalid Content-Length header', 'invalid_header', 'headers');
    case 'FST_ERR_VALIDATION':
      return ValidationError.single('', err.message, 'invalid');
    case 'FST_ERR_NOT_FOUND':
      return new NotFoundError('Route');
  }
  // Fastify's own client errors (e.g. malformed JSON on older versions, bad encodings).
  if (err instanceof SyntaxError && (err as FastifyError).statusCode === 400) {
    return ValidationError.single('', `Malformed JSON body: ${err.message}`, 'invalid_json');
  }
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new AppError(err.statusCode, err.message);
  }
  return null;
}
