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
import { CLASSIFIERS } from './classify.fns.js';
import { scanAsns, scanAwsKeys, scanAzureIds, scanCves, scanGcpProjects, scanTechniques } from './passes.fns.js';
import { MASTER_GROUP, MASTER_RE, SPACED_TRIGGER_RE, TRIGGER_RE, WORD_AFTER_RE, WORD_BEFORE_RE } from './patterns.js';
import type { ExtractOptions, ExtractResult } from './types.js';

export type { DropCategory, DroppedCandidate, ExtractedIoc, ExtractOptions, ExtractResult, IocKind, Span } from './types.js';
export { DEFAULT_TTL_DAYS, BASE_CONFIDENCE } from './collector.js';
export { refang, refangWithMap, isDefanged, type RefangMap } from './refang.fns.js';

const N_ALTS = MASTER_GROUP.length;

/** Try the classifiers at token start `s`; returns the end of what was consumed, or -1. */
function classifyAt(c: Collector, s: number): number {
  MASTER_RE.lastIndex = s;
  const m = MASTER_RE.exec(c.text);
  if (m === null) return -1;
  let k = 0;
  while (k < N_ALTS && m[MASTER_GROUP[k] as number] === undefined) k++;
  for (; k < N_ALTS; k++) {
    const end = (CLASSIFIERS[k] as (c: Collector, s: number) => number)(c, s);
    if (end > s) return end;
  }
  return -1;
}

/** Next match of a global regex at or after `from`, or null. */
function nextFrom(re: RegExp, text: string, from: number): RegExpExecArray | null {
  re.lastIndex = from;
  return re.exec(text);
}

/**
 * The trigger loop: jump between structural characters, classify each token once. Two trigger streams (the
 * main one and the rare space-led " dot " one) are merged in position order.
 */
function scanStructured(c: Collector): void {
  const { text } = c;
  let lastEnd = 0;
  let failedStart = -1;
  let main = nextFrom(TRIGGER_RE, text, 0);
  let spaced = nextFrom(SPACED_TRIGGER_RE, text, 0);
  while (main !== null || spaced !== null) {
    const fromSpaced = main === null || (spaced !== null && spaced.index < main.index);
    const t = fromSpaced ? (spaced as RegExpExecArray).index : (main as RegExpExecArray).index;
    WORD_BEFORE_RE.lastIndex = t;
    const wb = WORD_BEFORE_RE.exec(text);
    let s = t - (wb?.[1]?.length ?? 0);
    if (s < lastEnd) s = lastEnd;
    while (s < t && text.charCodeAt(s) === 45 /* '-' */) s++;
    const end = s === failedStart ? -1 : classifyAt(c, s);
    let next: number;
    if (end > s) {
      lastEnd = end;
      next = end > t ? end : t + 1;
    } else {
      failedStart = s;
      const ch = text.charCodeAt(t);
      if (ch >= 48 && ch <= 57) {
        // a digit trigger inside a long run that matched nothing: skip the rest of the run
        WORD_AFTER_RE.lastIndex = t;
        WORD_AFTER_RE.exec(text);
        next = Math.max(t + 1, WORD_AFTER_RE.lastIndex);
      } else next = t + 1;
    }
    if (main !== null && main.index < next) main = nextFrom(TRIGGER_RE, text, next);
    if (spaced !== null && spaced.index < next) spaced = nextFrom(SPACED_TRIGGER_RE, text, next);
  }
}

export function extractIocs(text: string, opts: ExtractOptions = {}): ExtractResult {
  const c = new Collector(text, opts.fileContext === true);
  scanStructured(c);
  scanCves(c);
  scanTechniques(c);
  scanAsns(c);
  scanAwsKeys(c);
  scanAzureIds(c);
  scanGcpProjects(c);
  return c.result();
}
