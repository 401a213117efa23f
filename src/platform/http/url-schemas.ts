import { z } from 'zod';
import { hasUserinfo, NO_USERINFO_MESSAGE } from '../outbound/url-secrets.js';

/**
 * The URL fields of the API, one rule each: http(s) only (never `javascript:`, `data:`, `file:`),
 * at most `max` characters.
 */
export function httpUrl(max = 2048) {
  return z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(max);
}

/**
 * A URL Rampart calls with a stored credential (sources, model providers, destinations): also no
 * `user:pass@`, which every read would echo; the credential has its own, encrypted field.
 */
export function endpointUrl(max = 2048) {
  return httpUrl(max).refine((u) => !hasUserinfo(u), NO_USERINFO_MESSAGE);
}
