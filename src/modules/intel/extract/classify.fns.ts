/**
 * Token classifiers. Each runs its own sticky regex (with match indices) at a token start `s` and either records
 * indicators / dropped candidates and returns the end of what it consumed, or returns -1 so the next one can try.
 * All spans come from regex indices into the original text, so text.slice(start, end) is always the match.
 */
import type { Collector } from './collector.js';
import {
  FILE_EXTS,
  type FpVerdict,
  HASH_IN_PATH_HOSTS,
  hasCertContext,
  hashVerdict,
  hasMobileContext,
  ipv4ContextVerdict,
  ipv6Verdict,
  PROCESS_EXTS,
  REVERSE_DNS_PREFIXES,
} from './false-positives.fns.js';
import { assessHost, type HostAssessment, type HostWhere } from './host.fns.js';
import { normalizeEmail, normalizeFingerprint, normalizeRegistryKey, normalizeUrl, normalizeWindowsPath } from './normalize.fns.js';
import * as P from './patterns.js';
import { ALNUM, charClass, HEXDIGIT } from './patterns.js';
import { refangScheme } from './refang.fns.js';
import type { IocKind } from './types.js';
import { classifyHex, isBitcoinAddress, isEthereumAddress, isHex, isMoneroAddress, isOnionLabel, isSsdeepBlockSize, looksLikeIpv6Attempt, parseIpv6 } from './validate.fns.js';

type Classifier = (c: Collector, s: number) => number;

const URL_RE = P.sticky(P.URL_SRC);
const EMAIL_RE = P.sticky(P.EMAIL_SRC);
const REGISTRY_RE = P.sticky(P.REGISTRY_SRC, 'y'); // case-sensitive: roots and Title-Case continuation
const WINPATH_RE = P.sticky(P.WINPATH_SRC, 'y');
/** A host-like value is defanged when it holds anything but label characters and dots. */
const HOST_DEFANG_RE = /[^\w.\-\u0080-\uffff]/;
const hostDefanged = (raw: string): boolean => HOST_DEFANG_RE.test(raw);
const ARN_RE = P.sticky(P.ARN_SRC);
const CERT_COLON_RE = P.sticky(P.CERT_COLON_SRC);
const SSDEEP_RE = P.sticky(P.SSDEEP_SRC, 'y');
const IPV6_RE = P.sticky(P.IPV6_SRC);
const VERSION_IP_RE = P.sticky(P.VERSION_IP_SRC);
const IPV4_RE = P.sticky(P.IPV4_SRC);
const HOST_RE = P.sticky(P.HOST_SRC);
const HOST_PLAIN_RE = P.sticky(P.HOST_PLAIN_SRC);
const IPV4_PLAIN_RE = P.sticky(P.IPV4_PLAIN_SRC);
const TAIL_RE = P.sticky(P.TAIL_SRC);

const WEB_SCHEMES = new Set(['http', 'https', 'ftp', 'ftps', 'sftp', 'ws', 'wss']);
const USERINFO_AT_RE = /(?:@|\[@\])$/;
const PATH_DEFANG_RE = /\[(?:\.|\/|dot|:|@)\]|\{(?:\.|dot)\}/i;
/** Trailing punctuation trimmed off a URL / key (. , ; : ! ? ' ") and off an ARN (no ! or ?, which ARNs may hold). */
const TRAILING_PUNCT = charSet(".,;:!?'\"");
const TRAILING_PUNCT_ARN = charSet(".,;:'\"");
const HEX_IN_PATH_RE = /(?<![0-9a-f])(?:[0-9a-f]{128}|[0-9a-f]{64}|[0-9a-f]{40}|[0-9a-f]{32})(?![0-9a-f])/gi;
const PLAY_ID_RE = /[?&]id=([A-Za-z][\w]*(?:\.[A-Za-z_][\w]*)+)/;

function execAt(re: RegExp, text: string, s: number): RegExpExecArray | null {
  re.lastIndex = s;
  return re.exec(text);
}

/** End of a sticky match at `s`, or -1 (no match array, no capture strings). */
function testAt(re: RegExp, text: string, s: number): number {
  re.lastIndex = s;
  return re.test(text) ? re.lastIndex : -1;
}

/** End of the port/path tail after a host ending at `he` (or `he` itself). */
function tailEnd(text: string, he: number): number {
  const ch = text.charCodeAt(he);
  // ':' '/' '?' '#' '[' '(' '{' can start a port or path
  if (ch !== 58 && ch !== 47 && ch !== 63 && ch !== 35 && ch !== 91 && ch !== 40 && ch !== 123) return he;
  const e = testAt(TAIL_RE, text, he);
  return e > he ? e : he;
}

/** Characters after a plain match that may continue it in a defanged form: '[' '(' '{' ' ' '\'. */
const mayContinueDefanged = (ch: number): boolean => ch === 91 || ch === 40 || ch === 123 || ch === 32 || ch === 92;

/** Whether the token of the last `hostEnd` that found one is defanged (read right after the call). */
let hostEndDefanged = false;

/**
 * End of a host-like token at `s`, or -1; whether it is defanged goes to `hostEndDefanged` (no result object per
 * host-like token). The plain regex first, the defang-aware one only when the plain one fails or stops where a
 * defang form could follow.
 */
function hostEnd(text: string, s: number, plain: RegExp, full: RegExp): number {
  const pe = testAt(plain, text, s);
  hostEndDefanged = false;
  if (pe > 0 && !mayContinueDefanged(text.charCodeAt(pe))) return pe;
  const fe = testAt(full, text, s);
  if (fe < 0) return pe > 0 ? pe : -1;
  hostEndDefanged = fe !== pe;
  return fe;
}

/** Characters that may need trimming at the end of a URL / key: . , ; : ! ? ' " ) ] } */
const TRIM_CANDIDATE = new Set([46, 44, 59, 58, 33, 63, 39, 34, 41, 93, 125]);

function charSet(chars: string): Uint8Array {
  const t = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) t[chars.charCodeAt(i)] = 1;
  return t;
}

/** Occurrences of the character `ch` in text[from, end). */
function countChar(text: string, from: number, end: number, ch: number): number {
  let n = 0;
  for (let i = from; i < end; i++) if (text.charCodeAt(i) === ch) n++;
  return n;
}

/**
 * Drop trailing punctuation and unbalanced closing brackets at the end of [from, end): a run of `punct`
 * characters, then a ')', ']' or '}' that has more of itself than of its opener in the segment, repeatedly.
 * Read in place: no slice of the segment, no split into arrays.
 */
function trimEnd(text: string, from: number, end: number, punct: Uint8Array = TRAILING_PUNCT): number {
  if (end <= from || !TRIM_CANDIDATE.has(text.charCodeAt(end - 1))) return end;
  for (;;) {
    let e = end;
    for (let ch = text.charCodeAt(e - 1); e > from && ch < 128 && punct[ch] === 1; ch = text.charCodeAt(e - 1)) e--;
    if (e < end) {
      end = e;
      continue;
    }
    if (end <= from) return end;
    const last = text.charCodeAt(end - 1);
    const open = last === 41 ? 40 : last === 93 ? 91 : last === 125 ? 123 : 0;
    if (open !== 0 && countChar(text, from, end, open) < countChar(text, from, end, last)) {
      end -= 1;
      continue;
    }
    return end;
  }
}

const LOCAL_DEFANG_RE = /[[({]/;
/** The bare " dot " form (weak evidence: prose can produce it). */
const SPACED_DOT_RE = / dot /i;

const REVERSE_DNS_MAX = Math.max(...[...REVERSE_DNS_PREFIXES].map((p) => p.length));

function mobileContext(text: string, s: number, raw: string): boolean {
  const dot = raw.indexOf('.');
  // most tokens are rejected by the first label's length, without building a string
  if (dot < 1 || dot > REVERSE_DNS_MAX || !REVERSE_DNS_PREFIXES.has(raw.slice(0, dot).toLowerCase())) return false;
  return hasMobileContext(text, s);
}

/** Record a host assessment at [hs, he). Returns the assessment for callers that build on it. */
function emitHost(c: Collector, a: HostAssessment, hs: number, he: number, defanged: boolean, conf = 0): void {
  switch (a.kind) {
    case 'ignore':
      return;
    case 'filename':
    case 'process':
    case 'mobile-id':
      if (a.domainDrop) c.drop('domain', hs, he, a.domainDrop.reason, a.domainDrop.category, a.normalized);
      c.add(a.kind, hs, he, a.normalized, defanged, conf);
      return;
    default:
      if (a.drop) c.drop(a.kind, hs, he, a.drop.reason, a.drop.category, a.drop.category === 'invalid' ? undefined : a.normalized);
      else c.add(a.kind, hs, he, a.normalized, defanged, conf);
  }
}

const tryUrl: Classifier = (c, s) => {
  const { text } = c;
  const m = execAt(URL_RE, text, s);
  if (!m) return -1;
  const rawScheme = m[1] as string;
  const scheme = refangScheme(rawScheme);
  const hostRaw = m[4] as string;
  // capture groups are contiguous: scheme, sep, userinfo, host, colon, port, path
  let hs = s + rawScheme.length + (m[2] as string).length + (m[3] as string).length;
  let he = hs + hostRaw.length;
  const ps = m[7] === undefined ? -1 : he + (m[5]?.length ?? 0) + (m[6]?.length ?? 0);
  let end = s + m[0].length;
  if (ps >= 0) end = Math.max(ps, trimEnd(text, ps, end));
  let hostNorm: string;
  let hostDrop: FpVerdict | undefined;
  const hDefanged = hostDefanged(hostRaw);
  if (hostRaw.startsWith('[')) {
    hs += 1;
    he -= 1;
    const v6 = parseIpv6(hostRaw.slice(1, -1));
    if (!v6.ok) {
      hostNorm = hostRaw;
      hostDrop = { reason: v6.reason, category: 'invalid' };
      c.drop('ipv6', hs, he, v6.reason, 'invalid');
    } else {
      hostNorm = `[${v6.value.canonical}]`;
      hostDrop = ipv6Verdict(v6.value.parts, v6.value.canonical) ?? undefined;
      if (hostDrop) c.drop('ipv6', hs, he, hostDrop.reason, hostDrop.category, v6.value.canonical);
      else c.add('ipv6', hs, he, v6.value.canonical, false);
    }
  } else {
    const a = assessHost(hostRaw, hDefanged, 'url', c.fileContext, hDefanged && SPACED_DOT_RE.test(hostRaw));
    if (a.kind === 'ipv4' || a.kind === 'domain' || a.kind === 'onion') {
      hostNorm = a.normalized;
      hostDrop = a.drop;
      emitHost(c, a, hs, he, hDefanged);
    } else {
      hostNorm = hostRaw.toLowerCase();
      hostDrop = { reason: 'invalid URL host', category: 'invalid' };
    }
  }
  if (!WEB_SCHEMES.has(scheme)) return end; // tcp://, udp://, ssh://…: the host is the indicator
  const port = m[6] ?? '';
  if (port && Number(port) > 65535) hostDrop = { reason: 'invalid URL (port > 65535)', category: 'invalid' };
  const path = ps >= 0 ? text.slice(ps, end) : '';
  const normalized = normalizeUrl({ scheme, userinfo: (m[3] as string).replace(USERINFO_AT_RE, ''), host: hostNorm, port, path });
  const defanged = hDefanged || scheme !== rawScheme || m[2] !== '://' || m[5] === '[:]' || PATH_DEFANG_RE.test(path);
  if (hostDrop) c.drop('url', s, end, hostDrop.reason, hostDrop.category, hostDrop.category === 'invalid' ? undefined : normalized);
  else c.add('url', s, end, normalized, defanged);
  if (ps >= 0 && hostDrop?.category === 'benign') extractFromReferenceUrl(c, hostNorm, ps, end);
  return end;
};

/** Hashes in analysis-service links (virustotal.com/gui/file/<sha256>) and app ids in store links. */
function hostIn(set: ReadonlySet<string>, host: string): boolean {
  if (set.has(host)) return true;
  for (let i = host.indexOf('.'); i >= 0 && i < host.length - 1; i = host.indexOf('.', i + 1)) {
    if (set.has(host.slice(i + 1))) return true;
  }
  return false;
}

function extractFromReferenceUrl(c: Collector, host: string, ps: number, end: number): void {
  const isAnalysis = hostIn(HASH_IN_PATH_HOSTS, host);
  if (!isAnalysis && host !== 'play.google.com') return;
  const path = c.text.slice(ps, end);
  if (isAnalysis) {
    HEX_IN_PATH_RE.lastIndex = 0;
    for (let m = HEX_IN_PATH_RE.exec(path); m; m = HEX_IN_PATH_RE.exec(path)) {
      emitHex(c, ps + m.index, ps + m.index + m[0].length, m[0]);
    }
  }
  if (host === 'play.google.com') {
    const m = PLAY_ID_RE.exec(path);
    if (m?.[1]) {
      const st = ps + m.index + m[0].length - m[1].length;
      c.add('mobile-id', st, st + m[1].length, m[1], false, 0.2, 'android');
    }
  }
}

const tryEmail: Classifier = (c, s) => {
  const { text } = c;
  const m = execAt(EMAIL_RE, text, s);
  if (!m) return -1;
  const end = s + m[0].length;
  const hostRaw = m[3] as string;
  const defanged = (m[2] as string) !== '@' || hostDefanged(hostRaw) || LOCAL_DEFANG_RE.test(m[1] as string);
  const a = assessHost(hostRaw, hostDefanged(hostRaw), 'email', c.fileContext);
  if (a.kind !== 'domain' && a.kind !== 'onion') return -1;
  const normalized = normalizeEmail(m[1] as string, a.normalized);
  // a mailbox at a benign provider (gmail.com…) is still an indicator; reserved/invalid domains are not
  if (a.drop && a.drop.category !== 'benign') {
    c.drop('email', s, end, a.drop.reason, a.drop.category, a.drop.category === 'invalid' ? undefined : normalized);
  } else c.add('email', s, end, normalized, defanged);
  // the mail domain is a domain indicator too (as a URL's host is), unless it was dropped (reserved, benign
  // provider…): the email record already carries that reason
  if (!a.drop) {
    const hs = end - hostRaw.length;
    const hd = hostDefanged(hostRaw);
    c.add(a.kind, hs, end, a.normalized, hd);
  }
  return end;
};

const REG_TERMINATOR_RE = /^(?:$|[\r\n"'`)\],;]|\.(?:\s|$)|:\s)/;

const tryRegistry: Classifier = (c, s) => {
  const { text } = c;
  const m = execAt(REGISTRY_RE, text, s);
  if (!m) return -1;
  const value = m[0];
  let end = s + value.length;
  // a trailing multi-word component ("Volatile Environment") only when the key clearly ends there
  const sp = value.indexOf(' ', value.lastIndexOf('\\') + 1);
  if (sp >= 0 && !REG_TERMINATOR_RE.test(text.slice(end, end + 2))) end = s + sp;
  end = trimEnd(text, s + (m[1] as string).length + 1, end);
  const pathStart = s + (m[1] as string).length + (m[2] as string).length;
  let onlySeparators = true;
  for (let i = pathStart; i < end && onlySeparators; i++) onlySeparators = text.charCodeAt(i) === 92;
  if (onlySeparators) return -1;
  const path = text.slice(pathStart, end);
  c.add('registry-key', s, end, normalizeRegistryKey(m[1] as string, path), false);
  return end;
};

/** A file extension that ends the name: before a space, closing punctuation, a sentence end, or the end. */
const FILE_IN_COMP_RE = /\.([A-Za-z0-9]{1,12})(?=[ ,;)\]}]|\.(?:\s|$)|$)/g;

const tryWinPath: Classifier = (c, s) => {
  const { text } = c;
  const m = execAt(WINPATH_RE, text, s);
  if (!m) return -1;
  const lastSep = m[0].lastIndexOf('\\');
  const comp = m[0].slice(lastSep + 1);
  FILE_IN_COMP_RE.lastIndex = 0;
  let nameLen = -1;
  let ext = '';
  for (let f = FILE_IN_COMP_RE.exec(comp); f; f = FILE_IN_COMP_RE.exec(comp)) {
    if (FILE_EXTS.has((f[1] as string).toLowerCase())) {
      nameLen = f.index + f[0].length;
      ext = (f[1] as string).toLowerCase();
      break;
    }
  }
  if (nameLen <= 0) return -1; // a directory, not a file
  const nameStart = s + lastSep + 1;
  const end = nameStart + nameLen;
  c.add('filename', s, end, normalizeWindowsPath(text.slice(s, end)), false, 0, 'path');
  if (PROCESS_EXTS.has(ext)) c.add('process', nameStart, end, text.slice(nameStart, end).toLowerCase(), false);
  return end;
};

const tryArn: Classifier = (c, s) => {
  const m = execAt(ARN_RE, c.text, s);
  if (!m) return -1;
  const end = trimEnd(c.text, s + 12, s + m[0].length, TRAILING_PUNCT_ARN);
  c.add('cloud-id', s, end, c.text.slice(s, end), false, 0.2, 'aws-arn');
  return end;
};

const tryCertColon: Classifier = (c, s) => {
  const m = execAt(CERT_COLON_RE, c.text, s);
  if (!m) return -1;
  const end = s + m[0].length;
  const ctx = hasCertContext(c.text, s);
  const subtype = m[0].length === 59 ? 'sha1' : 'sha256';
  c.add('cert', s, end, normalizeFingerprint(m[0]), false, ctx ? 0.1 : -0.15, subtype);
  return end;
};

const LETTER_RE = /[A-Za-z]/;
const trySsdeep: Classifier = (c, s) => {
  const m = execAt(SSDEEP_RE, c.text, s);
  if (!m || !isSsdeepBlockSize(Number(m[1])) || (m[2] as string).length < 6 || !LETTER_RE.test(m[2] as string)) return -1;
  const end = s + m[0].length;
  c.add('ssdeep', s, end, m[0], false);
  return end;
};

const tryIpv6: Classifier = (c, s) => {
  const m = execAt(IPV6_RE, c.text, s);
  // times (12:30:45) and other short colon runs are not candidates
  if (!m || !looksLikeIpv6Attempt(m[0])) return -1;
  const end = s + m[0].length;
  const v6 = parseIpv6(m[0]);
  if (!v6.ok) {
    c.drop('ipv6', s, end, v6.reason, 'invalid');
    return end;
  }
  const verdict = ipv6Verdict(v6.value.parts, v6.value.canonical);
  if (verdict) c.drop('ipv6', s, end, verdict.reason, verdict.category, v6.value.canonical);
  else c.add('ipv6', s, end, v6.value.canonical, false);
  return end;
};

const tryVersionIp: Classifier = (c, s) => {
  const m = execAt(VERSION_IP_RE, c.text, s);
  if (!m) return -1;
  const end = s + m[0].length;
  c.drop('ipv4', end - (m[1] as string).length, end, 'looks like a version number', 'ambiguous');
  return end;
};

const tryIpv4: Classifier = (c, s) => {
  const { text } = c;
  const ipEnd = hostEnd(text, s, IPV4_PLAIN_RE, IPV4_RE);
  if (ipEnd < 0) return -1;
  const defanged = hostEndDefanged;
  const raw = text.slice(s, ipEnd);
  const a = assessHost(raw, defanged, 'text', c.fileContext);
  if (a.kind === 'ipv4' && !a.drop && !defanged) {
    const ctx = ipv4ContextVerdict(text, s, ipEnd);
    if (ctx) {
      c.drop('ipv4', s, ipEnd, ctx.reason, ctx.category, a.normalized);
      return tailEnd(text, ipEnd);
    }
  }
  emitHost(c, a, s, ipEnd, defanged);
  return tailEnd(text, ipEnd);
};

/** A host-like token at `s` (end `he` from hostEnd) that is not followed by an '@' form. */
function tryHostAt(c: Collector, s: number, he: number, defanged: boolean): number {
  const { text } = c;
  const raw = text.slice(s, he);
  const spaced = defanged && SPACED_DOT_RE.test(raw);
  const mctx = !defanged && mobileContext(text, s, raw);
  const a = assessHost(raw, defanged, 'text', c.fileContext, spaced, mctx);
  if (a.kind === 'ipv4') return -1;
  const conf = a.kind === 'mobile-id' ? (mctx ? 0.25 : 0) : spaced ? -0.2 : 0;
  emitHost(c, a, s, he, defanged, conf);
  // a file name is not followed by a URL path: only skip the tail for hosts
  return a.kind === 'filename' || a.kind === 'process' ? he : tailEnd(text, he);
}

/** Email if an '@' form follows the local part, else a host. */
const tryHostOrEmail: Classifier = (c, s) => {
  const { text } = c;
  const he = hostEnd(text, s, HOST_PLAIN_RE, HOST_RE);
  if (he >= 0) {
    const defanged = hostEndDefanged;
    const next = text.charCodeAt(he);
    // '+' and '%' continue a local part ("first.last+tag@…") but not a host
    if (next === 64 || ((mayContinueDefanged(next) || next === 43 || next === 37) && atFollows(text, s))) {
      const e = tryEmail(c, s);
      if (e > 0) return e;
    }
    return tryHostAt(c, s, he, defanged);
  }
  return atFollows(text, s) ? tryEmail(c, s) : -1;
};

function emitHex(c: Collector, s: number, end: number, hex: string): void {
  const lower = hex.toLowerCase();
  const k = classifyHex(lower);
  if (!k.ok) {
    const near: IocKind = hex.length < 36 ? 'md5' : hex.length < 52 ? 'sha1' : hex.length < 96 ? 'sha256' : 'sha512';
    c.drop(near, s, end, k.reason, 'invalid');
    return;
  }
  const benign = hashVerdict(lower);
  if (benign) {
    c.drop(k.value, s, end, benign.reason, benign.category, lower);
    return;
  }
  if ((k.value === 'sha1' || k.value === 'sha256') && hasCertContext(c.text, s)) {
    c.add('cert', s, end, lower, false, 0, k.value);
    return;
  }
  c.add(k.value, s, end, lower, false);
}

const ONION_SUFFIX_RE = /^\.onion(?![\w-])/i;
const BECH32_PREFIX_RE = /^bc1/i;
const AWS_KEY_PREFIX_RE = /^(?:AKIA|ASIA|AROA|AIDA|AGPA|AIPA|ANPA|ANVA|APKA|ABIA|ACCA)[A-Z0-9]{16}$/;

const tryLong: Classifier = (c, s) => {
  const { text } = c;
  // the maximal hex run and alphanumeric run at s; each counts when ≥ 32 (hash) / ≥ 20 characters and not
  // followed by '_' (what /[0-9a-f]{32,}(?!\w)/iy and /[a-z0-9]{20,}(?!\w)/iy match, without a regex call)
  let hexEnd = s;
  while ((charClass(text, hexEnd) & HEXDIGIT) !== 0) hexEnd++;
  let end = hexEnd;
  while ((charClass(text, end) & ALNUM) !== 0) end++;
  const underscoreAfter = text.charCodeAt(end) === 95;
  if (hexEnd - s >= 32 && hexEnd === end && !underscoreAfter) {
    emitHex(c, s, hexEnd, text.slice(s, hexEnd));
    return hexEnd;
  }
  if (end - s < 20 || underscoreAfter) return -1;
  const v = text.slice(s, end);
  if (v.length >= 32 && isHex(v)) emitHex(c, s, end, v);
  else if (v.length === 42 && isEthereumAddress(v)) c.add('eth', s, end, v.toLowerCase(), false);
  else if (v.length <= 35 && (v[0] === '1' || v[0] === '3') && isBitcoinAddress(v)) c.add('btc', s, end, v, false);
  else if (v.length >= 14 && (v[0] === 'b' || v[0] === 'B') && BECH32_PREFIX_RE.test(v) && isBitcoinAddress(v)) c.add('btc', s, end, v.toLowerCase(), false);
  else if (v.length === 95 && isMoneroAddress(v)) c.add('xmr', s, end, v, false);
  else if (v.length === 56 && isOnionLabel(v)) {
    // "<label>.onion" is a host: let the host classifier take the whole name (span and confidence)
    if (ONION_SUFFIX_RE.test(c.text.slice(end, end + 7))) return -1;
    c.add('onion', s, end, `${v.toLowerCase()}.onion`, false, -0.1);
  }
  else if (AWS_KEY_PREFIX_RE.test(v)) return end; // handled by the AWS key pass
  return end;
};

const isDigit = (ch: number): boolean => ch >= 48 && ch <= 57;

/** Local-part run followed by an '@' form ('@', '[@]', '(at)', ' [at] '…)? Sticky, no allocation. */
const AT_FOLLOWS_RE = /[\w%+-]+(?:(?:\.|\[\.\]|\(\.\))[\w%+-]+)*(?:@|[[({](?:@|at)[\])}]| [[(](?:@|at)[\])] )/iy;
function atFollows(text: string, s: number): boolean {
  AT_FOLLOWS_RE.lastIndex = s;
  return AT_FOLLOWS_RE.test(text);
}
const isLetter = (ch: number): boolean => (ch | 32) >= 97 && (ch | 32) <= 122;
const isHexCh = (ch: number): boolean => isDigit(ch) || ((ch | 32) >= 97 && (ch | 32) <= 102);

/**
 * Classify the token starting at `s`, reached through a trigger character `trig` (the char code at the trigger:
 * '.', '@', ':', '\', a bracket, a digit, or a space for " dot "). Only classifiers that can start at `s` given
 * that trigger are tried, cheapest/most specific first. Returns the end of what was consumed, or -1.
 */
export function classifyAt(c: Collector, s: number, trig: number): number {
  const { text } = c;
  const ch = text.charCodeAt(s);
  let end = -1;
  switch (trig) {
    case 58: // ':'
      if (isLetter(ch)) {
        end = tryUrl(c, s);
        if (end > 0) return end;
        if (text.charCodeAt(s + 1) === 58) {
          end = tryWinPath(c, s);
          if (end > 0) return end;
        }
        if (ch === 72) {
          end = tryRegistry(c, s);
          if (end > 0) return end;
        }
        if ((ch | 32) === 97 && text.startsWith('rn:', s + 1)) {
          end = tryArn(c, s);
          if (end > 0) return end;
        }
      }
      if (isHexCh(ch) && text.charCodeAt(s + 2) === 58) {
        end = tryCertColon(c, s);
        if (end > 0) return end;
      }
      if (isDigit(ch)) {
        end = trySsdeep(c, s);
        if (end > 0) return end;
      }
      if (isHexCh(ch) || ch === 58) return tryIpv6(c, s);
      return -1;
    case 92: // '\'
      if (ch === 72) {
        end = tryRegistry(c, s);
        if (end > 0) return end;
      }
      return ch === 37 || ch === 92 ? tryWinPath(c, s) : -1;
    case 46: // '.'
      if (isDigit(ch)) {
        end = tryIpv4(c, s);
        if (end > 0) return end;
      } else if ((ch | 32) === 118) {
        end = tryVersionIp(c, s);
        if (end > 0) return end;
      }
      // most dotted tokens are hosts; an email's local part looks like a host followed by an '@' form
      return tryHostOrEmail(c, s);
    case 64: // '@'
      return tryEmail(c, s);
    default:
      if (isDigit(trig)) {
        end = tryLong(c, s);
        if (end > 0) return end;
        return tryHostOrEmail(c, s);
      }
      // defang bracket or a space-led " dot " / " [at] "
      if (isLetter(ch)) {
        end = tryUrl(c, s);
        if (end > 0) return end;
      }
      if (isDigit(ch)) {
        end = tryIpv4(c, s);
        if (end > 0) return end;
      }
      return tryHostOrEmail(c, s);
  }
}

export type { HostWhere };
