/**
 * CVSS scores and vectors in text, and base scores computed from vectors. Pure, no I/O.
 *
 * - v3.1 / v3.0 base score: the FIRST specification formulas (CVSS v3.1 §7.1, Roundup per §Appendix A;
 *   v3.0 rounds up to one decimal directly);
 * - v2 base score: CVSS v2 guide §3.2.1;
 * - v4.0 vectors are recognised but not scored (the v4 score is a MacroVector table lookup); a score
 *   written next to them ("CVSS 4.0 score 9.3") is still picked up as a number.
 */

import type { CharSpan } from './sentences.fns.js';

export interface CvssFinding {
  /** Base score 0.0–10.0; null for a v4.0 vector (not computed). */
  score: number | null;
  version: '2.0' | '3.0' | '3.1' | '4.0' | null;
  vector: string | null;
  span: CharSpan;
}

const W3 = {
  AV: { N: 0.85, A: 0.62, L: 0.55, P: 0.2 },
  AC: { L: 0.77, H: 0.44 },
  UI: { N: 0.85, R: 0.62 },
  CIA: { H: 0.56, L: 0.22, N: 0 },
} as const;

/** CVSS v3.1 Roundup: the smallest number with one decimal that is >= input, robust to float error. */
export function roundup31(x: number): number {
  const int = Math.round(x * 100000);
  return int % 10000 === 0 ? int / 100000 : (Math.floor(int / 10000) + 1) / 10;
}

function metrics(vector: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of vector.split('/')) {
    const [k, v] = part.split(':');
    if (k && v !== undefined && !out.has(k)) out.set(k, v);
  }
  return out;
}

function pick<T extends Record<string, number>>(table: T, v: string | undefined): number | null {
  return v !== undefined && v in table ? (table[v as keyof T] as number) : null;
}

/** Base score of a `CVSS:3.x/AV:…/AC:…/PR:…/UI:…/S:…/C:…/I:…/A:…` vector; null when incomplete or invalid. */
export function cvss3BaseScore(vector: string): number | null {
  const head = /^CVSS:3\.([01])\//.exec(vector);
  if (!head) return null;
  const m = metrics(vector.slice(head[0].length));
  const scope = m.get('S');
  if (scope !== 'U' && scope !== 'C') return null;
  const av = pick(W3.AV, m.get('AV'));
  const ac = pick(W3.AC, m.get('AC'));
  const ui = pick(W3.UI, m.get('UI'));
  const c = pick(W3.CIA, m.get('C'));
  const i = pick(W3.CIA, m.get('I'));
  const a = pick(W3.CIA, m.get('A'));
  const pr = pick(scope === 'C' ? { N: 0.85, L: 0.68, H: 0.5 } : { N: 0.85, L: 0.62, H: 0.27 }, m.get('PR'));
  if (av === null || ac === null || ui === null || c === null || i === null || a === null || pr === null) return null;
  const iss = 1 - (1 - c) * (1 - i) * (1 - a);
  const impact = scope === 'U' ? 6.42 * iss : 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15;
  const exploitability = 8.22 * av * ac * pr * ui;
  if (impact <= 0) return 0;
  const raw = scope === 'U' ? Math.min(impact + exploitability, 10) : Math.min(1.08 * (impact + exploitability), 10);
  return head[1] === '1' ? roundup31(raw) : Math.ceil(raw * 10 - 1e-9) / 10;
}

/** Base score of a v2 vector `AV:N/AC:L/Au:N/C:P/I:P/A:P` (optionally prefixed `CVSS:2.0/`); null when invalid. */
export function cvss2BaseScore(vector: string): number | null {
  const m = metrics(vector.replace(/^\(?(?:CVSS:2\.0\/)?/, '').replace(/\)$/, ''));
  const av = pick({ L: 0.395, A: 0.646, N: 1.0 }, m.get('AV'));
  const ac = pick({ H: 0.35, M: 0.61, L: 0.71 }, m.get('AC'));
  const au = pick({ M: 0.45, S: 0.56, N: 0.704 }, m.get('Au'));
  const cia = { N: 0, P: 0.275, C: 0.66 };
  const c = pick(cia, m.get('C'));
  const i = pick(cia, m.get('I'));
  const a = pick(cia, m.get('A'));
  if (av === null || ac === null || au === null || c === null || i === null || a === null) return null;
  const impact = 10.41 * (1 - (1 - c) * (1 - i) * (1 - a));
  const exploitability = 20 * av * ac * au;
  const f = impact === 0 ? 0 : 1.176;
  return Math.round((0.6 * impact + 0.4 * exploitability - 1.5) * f * 10) / 10;
}

const V3_RE = /CVSS:3\.[01](?:\/[A-Za-z]{1,3}:[A-Za-z])+/g;
const V4_RE = /CVSS:4\.0(?:\/[A-Za-z]{1,3}:[A-Za-z])+/g;
const V2_RE = /(?<![\w/])(?:CVSS:2\.0\/)?AV:[LAN]\/AC:[HML]\/Au:[MSN]\/C:[NPC]\/I:[NPC]\/A:[NPC](?![\w:])/g;
/** "CVSS 9.8", "CVSS score of 9.8", "CVSSv3.1 base score: 7.5", "CVSS 3.1 score 8.8", "(CVSS: 10.0)". */
const SCORE_AFTER_RE =
  /\bCVSS(?:\s*v?\s*([234](?:\.[01])?))?(?:\s+(?:v|version)\s*[234](?:\.[01])?)?(?:\s*(?:base|severity|overall))?(?:\s*(?:score|rating))?(?:\s*(?:of|is|was|:|=))?\s*(10(?:\.0)?|\d\.\d)(?![\d.]*\d)(?!\/[A-Za-z])(?!\s*\/\s*(?!10\b)\d)/gi;
/** "9.8 CVSS", "a 9.8/10 CVSS score", "rated 9.8 on the CVSS scale". */
const SCORE_BEFORE_RE = /(?<![\d.])(10(?:\.0)?|\d\.\d)(?:\s*\/\s*10(?:\.0)?)?\s+(?:on\s+the\s+)?(?:CVSS)\b/gi;

function overlaps(spans: readonly CharSpan[], s: CharSpan): boolean {
  return spans.some((x) => s.start < x.end && x.start < s.end);
}

/** Scores and vectors in text, in text order; a number inside a vector is not read twice. */
export function cvssFromText(text: string): CvssFinding[] {
  const out: CvssFinding[] = [];
  for (const m of text.matchAll(V3_RE)) {
    const score = cvss3BaseScore(m[0]);
    if (score !== null) out.push({ score, version: m[0].startsWith('CVSS:3.1') ? '3.1' : '3.0', vector: m[0], span: { start: m.index, end: m.index + m[0].length } });
  }
  for (const m of text.matchAll(V4_RE)) out.push({ score: null, version: '4.0', vector: m[0], span: { start: m.index, end: m.index + m[0].length } });
  for (const m of text.matchAll(V2_RE)) {
    const span = { start: m.index, end: m.index + m[0].length };
    const score = cvss2BaseScore(m[0]);
    if (score !== null && !overlaps(out.map((f) => f.span), span)) out.push({ score, version: '2.0', vector: m[0], span });
  }
  const vectorSpans = out.map((f) => f.span);
  for (const re of [SCORE_AFTER_RE, SCORE_BEFORE_RE]) {
    for (const m of text.matchAll(re)) {
      const span = { start: m.index, end: m.index + m[0].length };
      if (overlaps(vectorSpans, span) || overlaps(out.map((f) => f.span), span)) continue;
      const raw = re === SCORE_AFTER_RE ? m[2] : m[1];
      const score = Number(raw);
      if (!Number.isFinite(score) || score < 0 || score > 10) continue;
      const v = re === SCORE_AFTER_RE ? m[1] : undefined;
      const version = v === undefined ? null : v.startsWith('2') ? '2.0' : v.startsWith('4') ? '4.0' : v === '3.0' ? '3.0' : '3.1';
      out.push({ score, version, vector: null, span });
    }
  }
  return out.sort((a, b) => a.span.start - b.span.start);
}
