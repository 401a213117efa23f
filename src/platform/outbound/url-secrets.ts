/**
 * Redaction: the one place that decides what of a text or URL is a secret. Some products put
 * the credential in the URL itself (a Teams/Power Automate workflow URL carries `sig=`, a Slack
 * incoming webhook is `/services/T…/B…/<secret>`, feeds take `?apikey=`), and receivers echo
 * what they were sent. URLs are shown whole only to callers who could change them (the
 * resource's `.manage` permission); everyone else gets `redactUrlSecrets`, and every stored
 * text that came back from elsewhere (delivery excerpts and errors, attempts, source and
 * destination `lastError`, log lines) goes through `redactSecrets`, when stored and when read.
 * Rules: docs/security.md#redaction.
 */
export const REDACTED = 'REDACTED';
const TEXT_REDACTED = '[redacted]';

/** A query parameter is a credential when its name is one of these, or contains one of the parts. */
const SECRET_PARAM = /^(?:sv|se|pwd)$/i;
const SECRET_PARAM_PART = /key|token|secret|sig|signature|password|passwd|auth|code/i;

export function isSecretParam(name: string): boolean {
  return SECRET_PARAM.test(name) || SECRET_PARAM_PART.test(name);
}

/**
 * Known secret-bearing URL paths: the part that is the credential becomes REDACTED. Slack
 * incoming webhooks, Discord (and Teams-style) `/webhooks/<id>/<secret>`, Office 365
 * connectors (`…/IncomingWebhook/…`), Zapier catch hooks, Telegram bot tokens.
 */
const SECRET_PATHS: Array<[RegExp, string]> = [
  [/(\/services\/[^/]+\/[^/]+\/)[^/]+/i, `$1${REDACTED}`],
  [/(\/workflows\/T[A-Z0-9]+\/A[A-Z0-9]+\/[^/]+\/)[^/]+/, `$1${REDACTED}`],
  [/(\/webhooks\/[^/]+\/)[^/]+/i, `$1${REDACTED}`],
  [/(\/IncomingWebhook\/).+$/i, `$1${REDACTED}`],
  [/(\/hooks\/catch\/[^/]+\/)[^/]+/i, `$1${REDACTED}`],
  [/(\/bot)\d+:[A-Za-z0-9_-]+/, `$1${REDACTED}`],
];

export function hasUrlSecrets(value: string): boolean {
  return redactUrlSecrets(value) !== value;
}

/** The URL with userinfo, credential-like query values and secret path parts replaced. Not a URL: unchanged. */
export function redactUrlSecrets(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  let changed = false;
  if (url.username || url.password) {
    url.username = REDACTED;
    url.password = '';
    changed = true;
  }
  const path = SECRET_PATHS.reduce((p, [re, to]) => p.replace(re, to), url.pathname);
  if (path !== url.pathname) {
    url.pathname = path;
    changed = true;
  }
  for (const name of [...new Set(url.searchParams.keys())]) {
    if (isSecretParam(name)) {
      url.searchParams.set(name, REDACTED);
      changed = true;
    }
  }
  return changed ? url.toString() : value;
}

/** Shorter known secrets are not redacted: a one-letter "token" would blank that letter everywhere. */
export const MIN_SECRET_LENGTH = 8;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Credential shapes of free text: bearer/basic values, Slack, Linear, Rampart and signing keys. */
const TOKEN_SHAPES: Array<[RegExp, string]> = [
  [/\b((?:bearer|basic)\s+)[A-Za-z0-9._~+/=-]{8,}/gi, `$1${TEXT_REDACTED}`],
  [/\bxox[a-z]-[A-Za-z0-9-]+/g, TEXT_REDACTED],
  [/\blin_api_[A-Za-z0-9]+/g, TEXT_REDACTED],
  [/\brmp_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{20,}/g, TEXT_REDACTED],
  [/\bwhsec_[A-Za-z0-9+/=]{16,}/g, TEXT_REDACTED],
];
/** A query-style `name=value` of a credential name, also where a URL was escaped (`\u0026`, `&amp;`) so no URL parser sees it. */
const PARAM_IN_TEXT = /([?&;]|\\u0026)([A-Za-z0-9_.\-[\]]+)=([^&\s"'<>#;\\]+)/g;

/**
 * The one redaction of free text (a receiver's answer, an error message, a log line): every
 * URL through `redactUrlSecrets`, credential-named `name=value` pairs, known token shapes, and
 * the caller's known secrets (e.g. the destination's token) — whole occurrences only, and only
 * when at least MIN_SECRET_LENGTH characters long. null stays null (a column with no text).
 */
export function redactSecrets<T extends string | null>(text: T, known: ReadonlyArray<string | null | undefined> = []): T {
  if (text === null) return text;
  let t: string = text;
  for (const secret of known) {
    if (!secret || secret.length < MIN_SECRET_LENGTH) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) {
      t = t.replace(new RegExp(`(?<![A-Za-z0-9])${escapeRe(form)}(?![A-Za-z0-9])`, 'g'), TEXT_REDACTED);
    }
  }
  t = t.replace(/\bhttps?:\/\/[^\s"'<>]+/gi, (u) => redactUrlSecrets(u));
  t = t.replace(PARAM_IN_TEXT, (m, sep: string, name: string) => (isSecretParam(name) ? `${sep}${name}=${REDACTED}` : m));
  for (const [re, to] of TOKEN_SHAPES) t = t.replace(re, to);
  return t as T;
}

/** Zod refinement message for URLs that must not carry userinfo. */
export const NO_USERINFO_MESSAGE = 'must not contain a user name or password; put the credential in the credential field';

export function hasUserinfo(value: string): boolean {
  try {
    const url = new URL(value);
    return !!(url.username || url.password);
  } catch {
    return false;
  }
}
