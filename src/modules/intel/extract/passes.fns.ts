/**
 * Literal-prefixed indicators, each found by one global regex over the whole text (irregexp searches their
 * first characters quickly): CVE ids, ATT&CK technique ids, AS numbers, AWS access key ids, Azure subscription /
 * tenant GUIDs, GCP project ids.
 */
import type { Collector } from './collector.js';
import { awsKeyVerdict } from './false-positives.fns.js';
import { normalizeCve, normalizeTechnique } from './normalize.fns.js';
import { ASN_AT_RE, AWS_KEY_RE, AZURE_ID_RE, CVE_AT_RE, GCP_PROJECT_RE, TECHNIQUE_AT_RE } from './patterns.js';
import { asnReservedReason, checkCveYear } from './validate.fns.js';

/** Is the char before `i` a letter/digit/underscore (i.e. `i` is not at a word start)? */
function wordCharBefore(text: string, i: number): boolean {
  if (i === 0) return false;
  const ch = text.charCodeAt(i - 1);
  return (ch >= 48 && ch <= 57) || (ch >= 65 && ch <= 90) || (ch >= 97 && ch <= 122) || ch === 95;
}

/** Every start of `lit` in `text`, ascending (a literal search runs at memory speed). */
function literalStarts(text: string, lit: string, out: number[] = []): number[] {
  for (let i = text.indexOf(lit); i >= 0; i = text.indexOf(lit, i + 1)) out.push(i);
  return out;
}

/**
 * The matches a global scan of `re` (sticky here) finds, given every position where a match can start
 * (ascending): each candidate at or after the previous match's end is tried.
 */
function matchesAt(re: RegExp, text: string, starts: readonly number[]): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  let from = 0;
  for (const p of starts) {
    if (p < from) continue;
    re.lastIndex = p;
    const m = re.exec(text);
    if (m) {
      out.push(m);
      from = p + m[0].length;
    }
  }
  return out;
}

/** Starts of "CVE", "cve" and "Cve": "CVE" by itself, the lowercase ones through their "ve" ('c' is too frequent to search for). */
function cveStarts(text: string): number[] {
  const upper = literalStarts(text, 'CVE');
  const lower: number[] = [];
  for (let i = text.indexOf('ve', 1); i >= 0; i = text.indexOf('ve', i + 1)) {
    const c = text.charCodeAt(i - 1);
    if (c === 99 || c === 67) lower.push(i - 1);
  }
  if (lower.length === 0) return upper;
  const out: number[] = [];
  let a = 0;
  let b = 0;
  while (a < upper.length || b < lower.length) {
    if (b >= lower.length || (a < upper.length && (upper[a] as number) < (lower[b] as number))) out.push(upper[a++] as number);
    else out.push(lower[b++] as number);
  }
  return out;
}

/**
 * CVE ids, ATT&CK technique ids and AS numbers. One regex over the text (their three alternatives) stopped at every
 * 'c', 'T' and 'A'; each is now tried only where its literal start occurs, and the three match lists merged in text
 * order. No match of one can contain another's start (CVE, T1 and AS share no character), so these are exactly
 * the matches of the single regex, recorded in the same order.
 */
export function scanIds(c: Collector): void {
  const { text } = c;
  const cves = matchesAt(CVE_AT_RE, text, cveStarts(text));
  const techniques = matchesAt(TECHNIQUE_AT_RE, text, literalStarts(text, 'T1'));
  const asns = matchesAt(ASN_AT_RE, text, literalStarts(text, 'AS'));
  const now = new Date();
  let a = 0;
  let b = 0;
  let d = 0;
  for (;;) {
    const ma = cves[a];
    const mb = techniques[b];
    const md = asns[d];
    const ia = ma ? ma.index : Infinity;
    const ib = mb ? mb.index : Infinity;
    const id = md ? md.index : Infinity;
    if (ia === Infinity && ib === Infinity && id === Infinity) return;
    let m: RegExpExecArray;
    let which: 0 | 1 | 2;
    if (ia < ib && ia < id) {
      m = ma as RegExpExecArray;
      which = 0;
      a++;
    } else if (ib < id) {
      m = mb as RegExpExecArray;
      which = 1;
      b++;
    } else {
      m = md as RegExpExecArray;
      which = 2;
      d++;
    }
    const i = m.index;
    if (wordCharBefore(text, i)) continue;
    const end = i + m[0].length;
    if (which === 0) {
      const year = m[1] as string;
      if (!checkCveYear(Number(year), now)) c.drop('cve', i, end, 'invalid CVE id (year out of range)', 'invalid');
      else c.add('cve', i, end, normalizeCve(year, m[2] as string), false);
    } else if (which === 1) {
      // a technique id starts a word: "-T1059" (a flag) or "x.T1234" are not technique ids
      if (i > 0 && (text[i - 1] === '-' || text[i - 1] === '.')) continue;
      c.add('attack-technique', i, end, normalizeTechnique(m[0]), false);
    } else {
      const n = Number(m[1]);
      const reserved = asnReservedReason(n);
      if (reserved) c.drop('asn', i, end, reserved, reserved.startsWith('invalid') ? 'invalid' : 'reserved', `AS${n}`);
      else c.add('asn', i, end, `AS${n}`, false);
    }
  }
}

const AWS_KEY_AT_RE = new RegExp(AWS_KEY_RE.source, 'y');
/** Second letters of the AWS key prefixes (AKIA, ASIA, AROA, AIDA, AGPA, AIPA, ANPA, ANVA, APKA, ABIA, ACCA). */
const AWS_SECOND = new Set([75, 83, 82, 73, 71, 78, 80, 66, 67]);

/**
 * AWS access key ids: the regex is tried (sticky) only at an 'A' followed by a prefix's second letter — an 'A' is
 * found at memory speed, while the global regex stopped at every 'A' of the prose. Same matches, same order.
 */
export function scanAwsKeys(c: Collector): void {
  const { text } = c;
  const re = AWS_KEY_AT_RE;
  for (let a = text.indexOf('A'); a >= 0; a = text.indexOf('A', a + 1)) {
    if (!AWS_SECOND.has(text.charCodeAt(a + 1))) continue;
    re.lastIndex = a;
    const m = re.exec(text);
    if (!m) continue;
    const i = a;
    a += m[0].length - 1;
    if (wordCharBefore(text, i)) continue;
    const end = i + m[0].length;
    const verdict = awsKeyVerdict(m[0]);
    if (verdict) c.drop('cloud-id', i, end, verdict.reason, verdict.category, m[0]);
    else c.add('cloud-id', i, end, m[0], false, 0.2, 'aws-access-key');
  }
}

/** Sticky copies of the global passes: tried only where a cheap single-character search says a match can start. */
const AZURE_AT_RE = new RegExp(AZURE_ID_RE.source, 'iy');
const GCP_AT_RE = new RegExp(GCP_PROJECT_RE.source, 'y');
/** Longest text AZURE_ID_RE can match before its GUID: "subscriptions" + "-ids" + 4 + "is" + 3. */
const AZURE_PREFIX_MAX = 26;

/**
 * Azure subscription / tenant ids. Scanning for AZURE_ID_RE's case-insensitive words stops at every 's' and 't';
 * instead, find its GUID (hyphens at 8, 13, 18 and 23: a search for '-' runs at memory speed) and try the regex
 * at each start from which it could reach that GUID. The matches are those of the global regex: the leftmost
 * start at or after the previous match's end.
 */
export function scanAzureIds(c: Collector): void {
  const { text } = c;
  const re = AZURE_AT_RE;
  let from = 0;
  for (let h = text.indexOf('-', 8); h >= 0; h = text.indexOf('-', h + 1)) {
    const g = h - 8;
    if (g < from || text.charCodeAt(h + 5) !== 45 || text.charCodeAt(h + 10) !== 45 || text.charCodeAt(h + 15) !== 45) continue;
    for (let p = Math.max(from, g - AZURE_PREFIX_MAX); p <= g; p++) {
      re.lastIndex = p;
      const m = re.exec(text);
      if (!m) continue;
      from = p + m[0].length;
      azureId(c, m);
      break;
    }
  }
}

const TENANT_RE = /^tenant/i;
const ZERO_GUID_RE = /^0{8}-0{4}-0{4}-0{4}-0{12}$/;
function azureId(c: Collector, m: RegExpExecArray): void {
  const guid = m[1] as string;
  const start = m.index + m[0].length - guid.length;
  const subtype = TENANT_RE.test(m[0]) ? 'azure-tenant' : 'azure-subscription';
  if (ZERO_GUID_RE.test(guid)) {
    c.drop('cloud-id', start, start + guid.length, 'placeholder GUID (all zeros)', 'reserved', guid);
    return;
  }
  c.add('cloud-id', start, start + guid.length, guid.toLowerCase(), false, 0, subtype);
}

const GCP_PLACEHOLDER_RE = /^(?:my-project|project-id|your-project|example)/;
/** GCP project ids ("projects/<id>"): tried where a '/' (found at memory speed) follows "projects". */
export function scanGcpProjects(c: Collector): void {
  const { text } = c;
  const re = GCP_AT_RE;
  let from = 0;
  for (let slash = text.indexOf('/', 8); slash >= 0; slash = text.indexOf('/', slash + 1)) {
    const at = slash - 8;
    if (at < from || !text.startsWith('projects', at)) continue;
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) continue;
    from = at + m[0].length;
    if (wordCharBefore(text, at)) continue;
    const id = m[1] as string;
    if (id.includes('--')) continue;
    const start = from - id.length;
    if (GCP_PLACEHOLDER_RE.test(id)) {
      c.drop('cloud-id', start, start + id.length, 'documentation placeholder', 'reserved', id);
      continue;
    }
    c.add('cloud-id', start, start + id.length, id, false, -0.1, 'gcp-project');
  }
}
