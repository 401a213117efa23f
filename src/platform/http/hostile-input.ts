import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError } from './errors.js';
import { literalAddressRefusal } from '../outbound/address-policy.js';

/**
 * Input PostgreSQL cannot store or our code cannot walk, refused (or made safe) at the edge,
 * once, for every route:
 * - a NUL character (`\u0000`) or a lone UTF-16 surrogate in any JSON string or key, query
 *   value or path parameter → 400 naming where (PostgreSQL text cannot hold either; they used
 *   to surface as 500s from deep inside a query);
 * - JSON nested deeper than MAX_JSON_DEPTH → 400 (recursive code such as JSON.stringify of a
 *   run input would overflow the stack).
 * Webhook bodies are the exception: a sender retries a refused delivery forever, so intake
 * keeps them, with those characters replaced by U+FFFD (`sanitizeWebhookValue`).
 */
export const MAX_JSON_DEPTH = 128;

/** Deepest `[`/`{` nesting of a JSON text, counted outside strings; stops once past `limit`. */
export function jsonDepthExceeds(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

function unstorable(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL character (\\u0000)';
  if (LONE_SURROGATE.test(s)) return 'contains a lone UTF-16 surrogate (invalid Unicode)';
  return null;
}

const storable = (s: string) => s.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATES, '\uFFFD');

/** The first string (value or key) of `value` PostgreSQL cannot store, with its path; iterative. */
export function findUnstorableString(value: unknown): { path: string; message: string } | null {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const why = unstorable(v);
      if (why) return { path, message: why };
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
        const p = path ? `${path}.${k}` : k;
        const why = unstorable(k);
        if (why) return { path: p, message: `key ${why}` };
        stack.push([child, p]);
      }
    }
  }
  return null;
}

/** A copy of a parsed webhook body with NULs and lone surrogates replaced by U+FFFD. */
export function sanitizeWebhookValue(value: unknown): unknown {
  if (typeof value === 'string') return storable(value);
  if (Array.isArray(value)) return value.map(sanitizeWebhookValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [storable(k), sanitizeWebhookValue(v)]));
  }
  return value;
}

function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), value);
}

/** 400 for the first unstorable string of a query or the path parameters; most requests have neither (no walk, no allocation). */
function refuseUnstorable(values: unknown, location: 'query' | 'params'): void {
  if (values === null || typeof values !== 'object') return;
  for (const _ in values) {
    const bad = findUnstorableString(values);
    if (bad) throw ValidationError.single(bad.path, bad.message, 'invalid_string', location);
    return;
  }
}

export function installInputGuards(app: FastifyInstance, opts: { allowPrivateNetworks: boolean }): void {
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    // An action that takes no body (restore, redeliver, test-send…) accepts `content-type:
    // application/json` with nothing in it, as many clients send; where a body is required the
    // empty one is still refused by the default parser below (400).
    if (text.trim() === '' && !request.routeOptions.schema?.body) return done(null, undefined);
    if (jsonDepthExceeds(text)) return done(ValidationError.single('', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, 'too_deep'), undefined);
    defaultJson(request, text, (err, value) => {
      if (err) return done(err, undefined);
      const bad = findUnstorableString(value);
      if (bad) return done(ValidationError.single(bad.path, bad.message, 'invalid_string'), undefined);
      done(null, value);
    });
  });

  app.addHook('preValidation', async (request: FastifyRequest) => {
    refuseUnstorable(request.query, 'query');
    refuseUnstorable(request.params, 'params');
    // A literal private, loopback or metadata address in a URL Rampart will call is refused when
    // it is saved (400 naming the rule), not only when it is fetched.
    const outboundUrls = request.routeOptions.config.outboundUrls;
    if (!outboundUrls) return;
    const issues = outboundUrls.flatMap((path) => {
      const value = at(request.body, path);
      const why = typeof value === 'string' ? literalAddressRefusal(value, opts.allowPrivateNetworks) : null;
      return why
        ? [{ path, message: `points at a ${why} address, which outbound calls refuse${opts.allowPrivateNetworks ? '' : ' (RAMPART_ALLOW_PRIVATE_NETWORKS is off)'}`, code: 'forbidden_address', location: 'body' as const }]
        : [];
    });
    if (issues.length) throw new ValidationError(issues);
  });
}
