/**
 * Credentials inside URLs. Some products put the credential in the URL itself: a Teams/Power
 * Automate workflow URL carries `sig=`, feeds take `?apikey=`, and people paste
 * `https://user:pass@host/…`. Such URLs are shown whole only to callers who could change them
 * (the resource's `.manage` permission); everyone else, logs and stored error messages get
 * them with the secret parts replaced.
 */
const SECRET_PARAM = /^(?:sig|signature|x-amz-signature|apikey|api[_-]?key|key|token|access[_-]?token|auth|authorization|password|passwd|pwd|secret|client[_-]?secret|code|sv|se)$/i;

export const REDACTED = 'REDACTED';

export function hasUrlSecrets(value: string): boolean {
  return redactUrlSecrets(value) !== value;
}

/** The URL with userinfo and the values of credential-like query parameters replaced. Not a URL: unchanged. */
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
  for (const name of [...new Set(url.searchParams.keys())]) {
    if (SECRET_PARAM.test(name)) {
      url.searchParams.set(name, REDACTED);
      changed = true;
    }
  }
  return changed ? url.toString() : value;
}

/** Every URL inside a free text (an error message, a log line) with its secrets redacted. */
export function redactUrlsInText(text: string): string {
  return text.replace(/\bhttps?:\/\/[^\s"'<>]+/gi, (u) => redactUrlSecrets(u));
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
