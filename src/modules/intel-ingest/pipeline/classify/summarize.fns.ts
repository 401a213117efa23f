/**
 * Extractive summaries of an intel item: every output is made of the item's own sentences (with
 * whitespace collapsed, and "…" where a sentence had to be cut). Pure, no I/O.
 *
 * - tldr: the first informative sentence, ≤ 200 characters (title when the text has none);
 * - summary: up to 3 sentences, ≤ 600 characters, chosen by position (lead first), overlap with the
 *   title and security keywords, kept in text order;
 * - abstract: the first paragraph with an informative sentence, ≤ 1200 characters cut at a sentence
 *   end;
 * - attackPath: the display names of `killChain` tactics in ATT&CK order when classification found
 *   techniques; otherwise the sentences (≤ 8, text order) that describe attack stages ("initial
 *   access", "moved laterally", "exfiltrated", …).
 */

import { sortTactics, tacticName } from '../../../intel/index.js';
import { splitSentences, type Sentence } from './sentences.fns.js';

export interface Summary {
  summary: string;
  tldr: string;
  abstract: string;
  attackPath: string[];
}

export const TLDR_MAX = 200;
export const SUMMARY_MAX = 600;
export const ABSTRACT_MAX = 1200;
const SUMMARY_SENTENCES = 3;
const ATTACK_PATH_MAX = 8;
const ATTACK_PATH_SENTENCE_MAX = 300;

const BOILERPLATE_RE =
  /^(?:click|share|read more|subscribe|follow us|sign up|copyright|©|all rights reserved|cookies?|table of contents|related|tags?:|posted (?:by|in|on)|updated:)/i;
const KEYWORD_RE =
  /\b(?:CVE-\d{4}-\d+|exploit\w*|vulnerab\w*|ransomware|malware|backdoor|threat actors?|APT\d*|attack\w*|compromis\w*|phishing|patch\w*|breach\w*|campaign)\b/gi;
const STAGE_RE =
  /\b(?:initial access|gain(?:ed|s|ing)? (?:initial )?access|persistence|privilege escalation|escalat(?:e|ed|ing) (?:their )?privileges|defen[cs]e evasion|credential (?:access|dumping|theft|harvesting)|dump(?:ed|ing)? credentials|lateral(?:ly)? movement|mov(?:e|ed|ing) laterally|command[- ]and[- ]control|C2 (?:server|channel|infrastructure|traffic)|exfiltrat\w+|deploy(?:ed|ing|s)? (?:the )?ransomware|encrypt(?:ed|ing|s)? (?:files|systems|hosts|servers)|reconnaissance)\b/i;
const STOP_WORDS = new Set(['this', 'that', 'with', 'from', 'have', 'been', 'were', 'their', 'about', 'into', 'after', 'over', 'what', 'when', 'which', 'will', 'more', 'than']);

/** Collapses whitespace and drops a leading list marker. */
export function cleanSentence(s: string): string {
  // Most sentences have single spaces only: skip the copy then (same result).
  return (ODD_SPACE_RE.test(s) ? s.replace(/\s+/g, ' ') : s).replace(/^(?:[-*•▪‣◦–]|\d{1,2}[.)])\s+/, '').trim();
}

/** Whitespace that `\s+ → ' '` would change: two in a row, or one that is not a plain space. */
const ODD_SPACE_RE = /\s\s|[^\S ]/;

/** Cuts at a word boundary so that the result, with "…", is at most `max` characters. */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.5 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/** Prose, not a heading, a label or a run of values: ≥ 25 characters, ≥ 4 words, mostly letters. */
function informative(s: string): boolean {
  if (s.length < 25 || s.endsWith(':')) return false;
  let spaces = 0;
  let letters = 0;
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    if (c === 32) spaces += 1;
    else if (c < 128 ? (c | 32) >= 97 && (c | 32) <= 122 : LETTER_RE.test(s[i] as string)) letters += 1;
  }
  // Words are separated by single spaces here (cleanSentence collapsed the rest).
  if (spaces < 3 || BOILERPLATE_RE.test(s)) return false;
  return letters / s.length > 0.5;
}

const LETTER_RE = /\p{L}/u;

/** Words of 4+ letters, digits or hyphens, lower-cased. */
function longWords(s: string): string[] {
  const lower = s.toLowerCase();
  // ASCII text (most of it) takes the non-Unicode pattern: the same words, several times faster.
  return lower.match(ASCII_RE.test(lower) ? /[a-z0-9-]{4,}/g : /[\p{L}\p{N}-]{4,}/gu) ?? [];
}

const ASCII_RE = /^[\x00-\x7f]*$/;

function titleWords(title: string): Set<string> {
  return new Set(longWords(title).filter((w) => !STOP_WORDS.has(w)));
}

interface Candidate {
  index: number;
  text: string;
}

function candidates(cleaned: readonly string[]): Candidate[] {
  const out: Candidate[] = [];
  cleaned.forEach((text, index) => {
    if (informative(text)) out.push({ index, text });
  });
  return out;
}

function pickSummary(list: readonly Candidate[], title: string): string {
  if (list.length === 0) return '';
  const words = titleWords(title);
  const scored = list.map((c, rankInText) => {
    const tokens = longWords(c.text);
    const overlap = words.size === 0 ? 0 : new Set(tokens.filter((t) => words.has(t))).size / words.size;
    const keywords = Math.min(3, (c.text.match(KEYWORD_RE) ?? []).length);
    return { c, score: 1 / (1 + rankInText * 0.5) + overlap * 0.6 + keywords * 0.15 };
  });
  const chosen = scored
    .sort((a, b) => b.score - a.score || a.c.index - b.c.index)
    .slice(0, SUMMARY_SENTENCES)
    .map((x) => x.c)
    .sort((a, b) => a.index - b.index);
  let out = '';
  for (const c of chosen) {
    const next = out === '' ? c.text : `${out} ${c.text}`;
    if (next.length <= SUMMARY_MAX) out = next;
    else if (out === '') out = truncate(c.text, SUMMARY_MAX);
  }
  return out;
}

/** Sentences never span a blank line, so paragraphs are runs of sentences with no blank line between them. */
function paragraphs(text: string, sentences: readonly Sentence[], cleaned: readonly string[]): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  sentences.forEach((s, i) => {
    const prev = sentences[i - 1];
    if (prev && PARAGRAPH_BREAK_RE.test(text.slice(prev.end, s.start))) {
      out.push(current);
      current = [];
    }
    if (cleaned[i] !== '') current.push(cleaned[i] as string);
  });
  out.push(current);
  return out;
}

const PARAGRAPH_BREAK_RE = /\n[ \t]*\n/;

function pickAbstract(paragraphList: readonly string[][]): string {
  for (const all of paragraphList) {
    const from = all.findIndex(informative);
    if (from < 0) continue;
    // Leading headings ("Overview") are not part of the abstract.
    const sentences = all.slice(from);
    let out = '';
    for (const s of sentences) {
      const next = out === '' ? s : `${out} ${s}`;
      if (next.length > ABSTRACT_MAX) return out === '' ? truncate(s, ABSTRACT_MAX) : out;
      out = next;
    }
    return out;
  }
  return '';
}

function pickAttackPath(cleaned: readonly string[], killChain: readonly string[]): string[] {
  if (killChain.length > 0) return sortTactics(killChain).map(tacticName);
  const out: string[] = [];
  for (const text of cleaned) {
    if (!STAGE_RE.test(text) || out.includes(text)) continue;
    out.push(truncate(text, ATTACK_PATH_SENTENCE_MAX));
    if (out.length >= ATTACK_PATH_MAX) break;
  }
  return out;
}

/** `sentences`: the text's, when the caller already split it (enrichment does, once per item). */
export function summarize(title: string, text: string, opts: { killChain?: readonly string[]; sentences?: readonly Sentence[] } = {}): Summary {
  const sentences = opts.sentences ?? splitSentences(text);
  const cleaned = sentences.map((s) => cleanSentence(s.text));
  const list = candidates(cleaned);
  const cleanTitle = cleanSentence(title);
  const first = list[0]?.text ?? '';
  return {
    summary: pickSummary(list, title) || truncate(cleanTitle, SUMMARY_MAX),
    tldr: truncate(first || cleanTitle, TLDR_MAX),
    abstract: pickAbstract(paragraphs(text, sentences, cleaned)),
    attackPath: pickAttackPath(cleaned, opts.killChain ?? []),
  };
}
