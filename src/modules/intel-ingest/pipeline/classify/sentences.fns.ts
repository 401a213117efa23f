/**
 * Sentence splitting and supporting-passage windows over an item's text. Pure, no I/O.
 *
 * Every span returned here is exact: `text.slice(span.start, span.end) === span.text`.
 */

export interface CharSpan {
  start: number;
  end: number;
}

export interface Sentence extends CharSpan {
  text: string;
}

export interface Passage {
  text: string;
  charSpan: CharSpan;
}

/**
 * Lower-cased words that end with a period without ending the sentence ("e.g. the", "Acme Inc. said").
 * Multi-dot forms (U.S., e.g., a.m.) are recognised by shape, single capitals by the initials rule.
 */
const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'vs', 'etc', 'inc', 'ltd', 'corp', 'co', 'llc', 'no', 'nos',
  'fig', 'figs', 'approx', 'est', 'dept', 'al', 'cf', 'ca', 'vol', 'ver', 'op', 'pp', 'ed', 'gen', 'gov', 'rev',
  'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'resp', 'min', 'max', 'incl',
]);

/** . ! ? … */
const isTerminal = (c: number): boolean => c === 46 || c === 33 || c === 63 || c === 0x2026;
/** " ' ” ’ ) ] » */
const isCloser = (c: number): boolean => c === 34 || c === 39 || c === 0x201d || c === 0x2019 || c === 41 || c === 93 || c === 0xbb;
/** A line shorter than this, ended by a newline, is taken as a heading or a list line, not a wrapped line. */
const SHORT_LINE = 60;
const BULLET_RE = /^[ \t]*(?:[-*•▪‣◦–]|\d{1,2}[.)])[ \t]/;

/** Whitespace as `\s` sees it, by code: this runs for most characters of every item. */
function isSpaceCode(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 160) return false;
  return c === 160 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

function isSpace(ch: string | undefined): boolean {
  return ch !== undefined && isSpaceCode(ch.charCodeAt(0));
}

function isLower(ch: string | undefined): boolean {
  if (ch === undefined) return false;
  const c = ch.charCodeAt(0);
  if (c < 128) return c >= 97 && c <= 122;
  return /\p{Ll}/u.test(ch);
}

function isWordOrDot(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  if (c < 128) return c === 46 || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return /[\p{L}\p{N}]/u.test(text[at] as string);
}

/** True when the period at `dot` belongs to the word before it (abbreviation, initial, list number). */
function periodIsPartOfWord(text: string, dot: number): boolean {
  let s = dot;
  while (s > 0 && isWordOrDot(text, s - 1)) s -= 1;
  const word = text.slice(s, dot);
  if (word === '') return false;
  if (ABBREVIATIONS.has(word.toLowerCase())) return true;
  if (/^(?:\p{L}\.)+\p{L}$/u.test(word)) return true; // U.S. / e.g. / a.m.
  if (/^\p{Lu}$/u.test(word)) return true; // initials: "J. Smith"
  if (/^\d{1,2}$/.test(word)) {
    // "1. Initial access" at the start of a line is a list number.
    let p = s - 1;
    while (p >= 0 && (text[p] === ' ' || text[p] === '\t')) p -= 1;
    return p < 0 || text[p] === '\n';
  }
  return false;
}

/**
 * Splits text into sentences. Boundaries: blank lines; a newline after a short line or before a
 * bullet; and `. ! ? …` (plus closing quotes/brackets) followed by whitespace and a character that
 * is not lower-case. Periods that are not followed by whitespace never split, so decimals, versions,
 * IPs (1.2.3.4), domains (evil.com) and defanged forms (evil[.]com, hxxp://x(.)y) stay whole.
 */
export function splitSentences(text: string): readonly Sentence[] {
  const cuts: number[] = [];
  const n = text.length;
  for (let i = 0; i < n; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      const lineStart = text.lastIndexOf('\n', i - 1) + 1;
      const prevLine = text.slice(lineStart, i).trim();
      const nextLineEnd = text.indexOf('\n', i + 1);
      const nextLine = text.slice(i + 1, nextLineEnd === -1 ? n : nextLineEnd);
      if (prevLine === '' || nextLine.trim() === '' || prevLine.length < SHORT_LINE || BULLET_RE.test(nextLine)) cuts.push(i);
      continue;
    }
    if (!isTerminal(c)) continue;
    let j = i + 1;
    while (j < n && isTerminal(text.charCodeAt(j))) j += 1; // "?!", "..."
    while (j < n && isCloser(text.charCodeAt(j))) j += 1;
    if (j < n && !isSpaceCode(text.charCodeAt(j))) continue;
    let k = j;
    while (k < n && isSpaceCode(text.charCodeAt(k))) k += 1;
    if (k < n && isLower(text[k])) continue;
    if (c === 46 && j === i + 1 && periodIsPartOfWord(text, i)) continue;
    cuts.push(j);
    i = j - 1;
  }
  cuts.push(n);

  const out: Sentence[] = [];
  let from = 0;
  for (const cut of cuts) {
    let s = from;
    let e = cut;
    while (s < e && isSpaceCode(text.charCodeAt(s))) s += 1;
    while (e > s && isSpaceCode(text.charCodeAt(e - 1))) e -= 1;
    if (e > s) out.push({ start: s, end: e, text: text.slice(s, e) });
    from = cut;
  }
  return out;
}

/** Index of the first sentence whose end is after `pos` (binary search; sentences are sorted). */
function sentenceIndexAt(sentences: readonly Sentence[], pos: number): number {
  let lo = 0;
  let hi = sentences.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sentences[mid] as Sentence).end <= pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export const MAX_PASSAGE_CHARS = 400;

/**
 * The supporting passage for evidence at `span`: the sentence(s) containing it, or, when they are
 * longer than `maxChars`, a window around the evidence cut at word boundaries. Always contains the
 * evidence, always exact (`text.slice(charSpan.start, charSpan.end) === passage.text`).
 */
export function passageAround(
  text: string,
  sentences: readonly Sentence[],
  span: CharSpan,
  maxChars: number = MAX_PASSAGE_CHARS,
): Passage {
  const evStart = Math.max(0, Math.min(span.start, text.length));
  const evEnd = Math.max(evStart, Math.min(span.end, text.length));
  const first = sentences[sentenceIndexAt(sentences, evStart)];
  const last = sentences[sentenceIndexAt(sentences, Math.max(evStart, evEnd - 1))];
  let start = Math.min(evStart, first && first.start <= evStart ? first.start : evStart);
  let end = Math.max(evEnd, last && last.start < evEnd ? last.end : evEnd);

  if (end - start > maxChars) {
    const room = Math.max(0, maxChars - (evEnd - evStart));
    let before = Math.floor(room / 2);
    let after = room - before;
    if (evStart - start < before) {
      after += before - (evStart - start);
      before = evStart - start;
    }
    if (end - evEnd < after) {
      before = Math.min(evStart - start, before + after - (end - evEnd));
      after = end - evEnd;
    }
    let ws = evStart - before;
    let we = evEnd + after;
    // Snap to word boundaries without cutting into the evidence.
    if (ws > start && !isSpace(text[ws - 1])) {
      let p = ws;
      while (p < evStart && !isSpace(text[p])) p += 1;
      ws = p < evStart ? p : ws;
    }
    if (we < end && !isSpace(text[we])) {
      let p = we;
      while (p > evEnd && !isSpace(text[p - 1])) p -= 1;
      we = p > evEnd ? p : we;
    }
    start = ws;
    end = we;
  }
  while (start < evStart && isSpace(text[start])) start += 1;
  while (end > evEnd && isSpace(text[end - 1])) end -= 1;
  return { text: text.slice(start, end), charSpan: { start, end } };
}

/** A stable, content-derived reference for a passage: unique per span, unaffected by merging lists. */
export function passageRef(span: CharSpan): string {
  return `passage:${span.start}-${span.end}`;
}

/** Whether a passage is exact for `text` (what every producer here guarantees). */
export function isExactPassage(text: string, p: Passage): boolean {
  const { start, end } = p.charSpan;
  return Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start <= end && end <= text.length && text.slice(start, end) === p.text;
}

/** Deduplicates passages by span (first wins), sorted by position: for `provenance.supportingPassages`. */
export function mergePassages<P extends Passage>(...lists: ReadonlyArray<readonly P[]>): P[] {
  const seen = new Map<string, P>();
  for (const list of lists) for (const p of list) {
    const key = `${p.charSpan.start}:${p.charSpan.end}`;
    if (!seen.has(key)) seen.set(key, p);
  }
  return [...seen.values()].sort((a, b) => a.charSpan.start - b.charSpan.start || a.charSpan.end - b.charSpan.end);
}
