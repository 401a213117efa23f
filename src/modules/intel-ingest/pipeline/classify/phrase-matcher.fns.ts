/**
 * Whole-word phrase matching over a token stream: one pass over the text whatever the number of
 * phrases (the ATT&CK catalog has thousands of names and aliases). Pure, no I/O.
 *
 * Tokens are maximal runs of letters and digits. A phrase matches a run of tokens when each token is
 * equal (case-insensitively, or exactly for case-sensitive phrases) and the separators between them
 * are equivalent: whitespace and hyphens/dashes are interchangeable ("X-Agent" = "X Agent"), other
 * punctuation must be the same (":" ignores surrounding spaces; "." must be exact so names never
 * join across a sentence end).
 */

import type { CharSpan } from './sentences.fns.js';

export interface Token extends CharSpan {
  text: string;
  lower: string;
}

const WORD_CHAR_RE = /^[\p{L}\p{N}]$/u;

/**
 * Code units of the letter or digit at `i` (1, or 2 for a surrogate pair), 0 when there is none.
 * ASCII is decided by code, the rest by the Unicode classes of `[\p{L}\p{N}]`: the same tokens as
 * matching that regex with `matchAll`, without a match array per token (a fifth of tokenizing an
 * RSS entry's text was the regex's matches and their garbage; docs/performance.md).
 */
function wordCharAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) ? 1 : 0;
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return WORD_CHAR_RE.test(text.slice(i, i + 2)) ? 2 : 0;
  }
  return WORD_CHAR_RE.test(text[i] as string) ? 1 : 0;
}

/** Maximal runs of letters and digits (`[\p{L}\p{N}]+`), with their spans and lower-cased text. */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    let w = wordCharAt(text, i);
    if (w === 0) {
      i += 1;
      continue;
    }
    const start = i;
    do i += w;
    while (i < n && (w = wordCharAt(text, i)) > 0);
    const word = text.slice(start, i);
    out.push({ start, end: i, text: word, lower: word.toLowerCase() });
  }
  return out;
}

/** Canonical form of the characters between two tokens, or null when they cannot join a phrase. */
export function separatorKey(s: string): string | null {
  if (s.length > 4) return null;
  if (/^[\s\u00a0\-\u2010-\u2015]+$/.test(s)) return ' ';
  if (s.includes('.') || s.includes('\n')) return s;
  return s.replace(/\s+/g, '');
}

export interface PhraseSpec<T> {
  phrase: string;
  caseSensitive: boolean;
  payload: T;
  /** The phrase only counts when the next word is one of these (lower case), e.g. "Royal ransomware". */
  suffixAnyOf?: readonly string[];
}

interface CompiledPhrase<T> {
  lower: string[];
  exact: string[];
  seps: string[];
  caseSensitive: boolean;
  suffix: ReadonlySet<string> | null;
  payloads: T[];
}

export interface PhraseIndex<T> {
  byFirst: Map<string, Array<CompiledPhrase<T>>>;
  size: number;
}

export interface PhraseMatch<T> extends CharSpan {
  /** The matched text, exactly as in the input. */
  text: string;
  payloads: readonly T[];
}

/** Tokens and separator keys of a phrase; null when it has no tokens or an unjoinable separator. */
function phraseShape(phrase: string): { tokens: Token[]; seps: string[] } | null {
  const tokens = tokenize(phrase);
  if (tokens.length === 0) return null;
  const seps: string[] = [];
  for (let i = 1; i < tokens.length; i += 1) {
    const key = separatorKey(phrase.slice((tokens[i - 1] as Token).end, (tokens[i] as Token).start));
    if (key === null) return null;
    seps.push(key);
  }
  return { tokens, seps };
}

export function compilePhrases<T>(specs: Iterable<PhraseSpec<T>>): PhraseIndex<T> {
  const byKey = new Map<string, CompiledPhrase<T>>();
  for (const spec of specs) {
    const shape = phraseShape(spec.phrase);
    if (!shape) continue;
    const exact = shape.tokens.map((t) => t.text);
    const lower = shape.tokens.map((t) => t.lower);
    const suffix = spec.suffixAnyOf && spec.suffixAnyOf.length > 0 ? [...spec.suffixAnyOf].map((s) => s.toLowerCase()).sort() : null;
    const key = JSON.stringify([spec.caseSensitive ? exact : lower, shape.seps, spec.caseSensitive, suffix]);
    const prev = byKey.get(key);
    if (prev) {
      prev.payloads.push(spec.payload);
      continue;
    }
    byKey.set(key, {
      lower,
      exact,
      seps: shape.seps,
      caseSensitive: spec.caseSensitive,
      suffix: suffix ? new Set(suffix) : null,
      payloads: [spec.payload],
    });
  }
  const byFirst = new Map<string, Array<CompiledPhrase<T>>>();
  for (const c of byKey.values()) {
    const first = c.lower[0] as string;
    const list = byFirst.get(first) ?? [];
    list.push(c);
    byFirst.set(first, list);
  }
  for (const list of byFirst.values()) list.sort((a, b) => b.lower.length - a.lower.length);
  return { byFirst, size: byKey.size };
}

const BAD_BEFORE = new Set(['.', '@', '_', '\\', '$', '#', '%', '=']);

/** The whitespace-delimited run around [start, end) looks like a URL, path or defanged indicator. */
function insideLocator(text: string, start: number, end: number): boolean {
  let s = start;
  while (s > 0 && !/\s/.test(text[s - 1] as string)) s -= 1;
  let e = end;
  while (e < text.length && !/\s/.test(text[e] as string)) e += 1;
  const run = text.slice(s, e);
  return /[a-z][a-z0-9+.-]*:\/\//i.test(run) || /hxxps?|\[\.\]|\(\.\)|\\/i.test(run) || /^\/|\/.*\//.test(run);
}

function boundaryOk(text: string, start: number, end: number): boolean {
  const before = text[start - 1];
  if (before !== undefined && BAD_BEFORE.has(before)) return false;
  const after = text[end];
  const after2 = text[end + 1] ?? '';
  if (after === '_' || after === '@') return false;
  if ((after === '.' || after === '\\') && /[\p{L}\p{N}]/u.test(after2)) return false;
  if (before === '/' || after === '/') return !insideLocator(text, start, end);
  return true;
}

function matchesAt<T>(text: string, tokens: readonly Token[], i: number, c: CompiledPhrase<T>): number {
  const n = c.lower.length;
  if (i + n > tokens.length) return -1;
  for (let j = 0; j < n; j += 1) {
    const tok = tokens[i + j] as Token;
    if (c.caseSensitive ? tok.text !== c.exact[j] : tok.lower !== c.lower[j]) return -1;
    if (j > 0) {
      const key = separatorKey(text.slice((tokens[i + j - 1] as Token).end, tok.start));
      if (key !== c.seps[j - 1]) return -1;
    }
  }
  if (c.suffix) {
    const next = tokens[i + n];
    if (!next || !c.suffix.has(next.lower)) return -1;
    if (separatorKey(text.slice((tokens[i + n - 1] as Token).end, next.start)) !== ' ') return -1;
  }
  return n;
}

/** Leftmost-longest, non-overlapping matches in text order. */
export function findPhrases<T>(text: string, tokens: readonly Token[], index: PhraseIndex<T>): Array<PhraseMatch<T>> {
  const out: Array<PhraseMatch<T>> = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const candidates = index.byFirst.get((tokens[i] as Token).lower);
    if (!candidates) continue;
    for (const c of candidates) {
      const n = matchesAt(text, tokens, i, c);
      if (n < 0) continue;
      const start = (tokens[i] as Token).start;
      const end = (tokens[i + n - 1] as Token).end;
      if (!boundaryOk(text, start, end)) continue;
      out.push({ start, end, text: text.slice(start, end), payloads: c.payloads });
      i += n - 1;
      break;
    }
  }
  return out;
}
