/**
 * Indicator extraction from intel item text: IPs, domains, URLs, emails, hashes, files, processes, registry keys,
 * certificates, cloud and mobile ids, CVE and ATT&CK ids, wallets, onion services, ASNs.
 *
 * - Defanged forms (hxxp, [.], (dot), [at], [/]…) are matched in the ORIGINAL text, so every span is exact:
 *   text.slice(span.start, span.end) is the occurrence as written.
 * - Candidates that are rejected are returned in `dropped` with a reason and category, never silently lost.
 * - Single pass per pattern family, precompiled regexes; see patterns.ts for the speed design.
 */
import { Collector } from './collector.js';
import { classifyAt } from './classify.fns.js';
import { scanAwsKeys, scanAzureIds, scanGcpProjects, scanIds } from './passes.fns.js';
import { LONG_TRIGGER_RE, SPACED_TRIGGER_RE, TOKEN_CHAR, TRIGGER_RE, WORD_AFTER_RE } from './patterns.js';
import type { Extraction } from './extraction.js';
import type { ExtractOptions, ExtractResult } from './types.js';

export { Extraction, KIND_OF_CODE } from './extraction.js';
export type { DropCategory, DroppedCandidate, ExtractedIoc, ExtractOptions, ExtractResult, IocKind, Span } from './types.js';
export { DEFAULT_TTL_DAYS, BASE_CONFIDENCE } from './collector.js';
export { refang, refangWithMap, isDefanged, type RefangMap } from './refang.fns.js';

/**
 * Position of the next trigger at or after `from`, or -1 (`back`: match length, so that the position is that of
 * the match start — or of the space before " dot "). No match array is allocated.
 */
function nextTrigger(re: RegExp, text: string, from: number, back: number): number {
  re.lastIndex = from;
  return re.test(text) ? re.lastIndex - back : -1;
}

const mainRe = TRIGGER_RE;
const longRe = LONG_TRIGGER_RE;
const spacedRe = SPACED_TRIGGER_RE;
const tokenChar = TOKEN_CHAR;
const wordAfter = WORD_AFTER_RE;

/**
 * A '\.' escaped dot ("evil\.com"): the word walk stops at the backslash, so step over it and take the word
 * before. Not after another backslash or slash: "C:\Windows\.hidden" is a path component, not a host.
 */
function escapedDotStart(text: string, t: number, lastEnd: number): number {
  let s = t - 1;
  while (s > lastEnd && tokenChar[text.charCodeAt(s - 1)] === 1) s--;
  if (s === t - 1) return t;
  const before = s > 0 ? text.charCodeAt(s - 1) : 0;
  return before === 92 || before === 47 ? t : s;
}

/** Defanged schemes written with non-word characters ("h[tt]p://", "h[xx]ps://", "h**p://"): the word walk stops inside them. */
const BRACKET_SCHEME_RE = /h\[(?:tt|xx)\]$/i;
function defangedSchemeStart(text: string, s: number, lastEnd: number): number {
  const prev = text.charCodeAt(s - 1);
  if (prev === 93 /* ']' */ && s - 5 >= lastEnd && BRACKET_SCHEME_RE.test(text.slice(s - 5, s))) return s - 5;
  if (prev === 42 /* '*' */ && s - 3 >= lastEnd && text.charCodeAt(s - 2) === 42 && (text.charCodeAt(s - 3) | 32) === 104) return s - 3;
  return s;
}

/**
 * The trigger loop: jump between structural characters, classify each token once. Three trigger streams (the
 * structural characters, long alphanumeric runs, and the rare " dot ") are merged in position order.
 */
function scanStructured(c: Collector): void {
  const { text } = c;
  let lastEnd = 0;
  let failedStart = -1;
  let main = nextTrigger(mainRe, text, 0, 1);
  let long = nextTrigger(longRe, text, 0, 16);
  let spaced = nextTrigger(spacedRe, text, 0, 5);
  const INF = Number.MAX_SAFE_INTEGER;
  for (;;) {
    const a = main < 0 ? INF : main;
    const b = long < 0 ? INF : long;
    const d = spaced < 0 ? INF : spaced;
    const t = a < b ? (a < d ? a : d) : b < d ? b : d;
    if (t === INF) break;
    const trig = text.charCodeAt(t);
    // start of the token: back over word characters (a few chars; bounded by the previous token's end). A
    // space-led defang (" [dot] ", " dot ") belongs to the word before the space.
    let s = (trig === 91 || trig === 40 || trig === 123) && t - 1 > lastEnd && text.charCodeAt(t - 1) === 32 ? t - 1 : t;
    while (s > lastEnd && tokenChar[text.charCodeAt(s - 1)] === 1) s--;
    while (s < t && text.charCodeAt(s) === 45 /* '-' */) s++;
    if (s === t && trig === 46 && t - 1 > lastEnd && text.charCodeAt(t - 1) === 92) s = escapedDotStart(text, t, lastEnd);
    else if (trig === 58 && s > lastEnd) s = defangedSchemeStart(text, s, lastEnd);
    const end = s === failedStart ? -1 : classifyAt(c, s, trig);
    let next: number;
    if (end > s) {
      lastEnd = end;
      next = end > t ? end : t + 1;
    } else {
      failedStart = s;
      if (trig >= 48 && trig <= 57) {
        // a digit trigger inside a long run that matched nothing: skip the rest of the run
        wordAfter.lastIndex = t;
        wordAfter.test(text);
        next = Math.max(t + 1, wordAfter.lastIndex);
      } else next = t + 1;
    }
    if (main >= 0 && main < next) main = nextTrigger(mainRe, text, next, 1);
    if (long >= 0 && long < next) long = nextTrigger(longRe, text, next, 16);
    if (spaced >= 0 && spaced < next) spaced = nextTrigger(spacedRe, text, next + 1, 5);
  }
}

/**
 * The extraction as columns (extraction.ts): offsets into the text, kinds as small integer codes, strings only
 * for the normalized values and reasons. For callers that keep a few fields of each indicator: they read what they
 * store and nothing else is built.
 */
export function scanIocs(text: string, opts: ExtractOptions = {}): Extraction {
  const c = new Collector(text, opts.fileContext === true);
  scanStructured(c);
  scanIds(c);
  scanAwsKeys(c);
  scanAzureIds(c);
  scanGcpProjects(c);
  return c.finish();
}

/** The extraction as objects: every indicator with its spans, every dropped candidate (`scanIocs(…).toResult()`). */
export function extractIocs(text: string, opts: ExtractOptions = {}): ExtractResult {
  return scanIocs(text, opts).toResult();
}
