import { ValidationError } from '../http/errors.js';

/**
 * A stored write-only secret (a source's apiKey, an MCP server's token, a model provider's
 * apiKey, a destination's token) is bound to the origin — scheme, host and port — of the URL it
 * was given for. Whoever may change the URL could otherwise point it at a host of theirs and
 * read a secret that nobody can read back (the Grafana data-source rule). The one comparison
 * every kind uses: docs/security.md#secrets-follow-their-origin.
 */

/**
 * The origin a URL sends to, as the WHATWG URL parser normalises it (host lower-cased and
 * punycoded, default port dropped: `https://A.example:443/x` and `https://a.example/y` are one
 * origin). null for null or a string that is not an absolute http(s) URL.
 */
export function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

export function sameOrigin(a: string | null | undefined, b: string | null | undefined): boolean {
  return originOf(a) === originOf(b);
}

export interface SecretOriginChange {
  /** The request field that carries the secret, named in the 400 (`apiKey`, `token`). */
  secretField: string;
  /** The field whose change moved the secret's destination (`serverUrl`, `config.url`, `baseUrl`). */
  urlField: string;
  /** Where the stored secret is sent today, and where it would be sent after the change (defaults applied). */
  before: string | null;
  after: string | null;
  /** A secret is stored. */
  stored: boolean;
  /** The request supplies the secret (a new value, or null to clear it): nothing stored would move. */
  given: boolean;
}

/**
 * 400 naming `secretField` when a stored secret would be kept while the URL it is sent to moves
 * to another origin. A path or query change on the same origin keeps the secret.
 */
export function assertSecretStaysWithOrigin(change: SecretOriginChange): void {
  if (!change.stored || change.given) return;
  if (sameOrigin(change.before, change.after)) return;
  throw ValidationError.single(
    change.secretField,
    `must be given again: ${change.urlField} now points at another origin (scheme, host or port), and a stored ${change.secretField} is sent only to the origin it was given for`,
    'secret_required',
  );
}
