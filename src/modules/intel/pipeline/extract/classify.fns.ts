/**
 * Token classifiers. Each runs its own sticky regex (with match indices) at a token start `s` and either records
 * indicators / dropped candidates and returns the end of what it consumed, or returns -1 so the next one can try.
 * All spans come from regex indices into the original text, so text.slice(start, end) is always the match.
 */
import type { Collector } from './collector.js';
import { CERT_CONTEXT_RE, hashVerdict, HASH_IN_PATH_HOSTS, ipv4ContextVerdict, ipv6Verdict, MOBILE_CONTEXT_RE, PROCESS_EXTS, FILE_EXTS, REVERSE_DNS_PREFIXES } from './false-positives.fns.js';
import { assessHost, type HostAssessment, type HostWhere, registrableDomain } from './host.fns.js';
import { normalizeEmail, normalizeFingerprint, normalizeRegistryKey, normalizeUrl, normalizeWindowsPath } from './normalize.fns.js';
import * as P from './patterns.js';
import { isDefanged, refangScheme } from './refang.fns.js';
import type { IocKind } from './types.js';
import { classifyHex, isBitcoinAddress, isEthereumAddress, isHex, isMoneroAddress, isOnionLabel, isSsdeepBlockSize, looksLikeIpv6Attempt, parseIpv6 } from './validate.fns.js';

type Classifier = (c: Collector, s: number) => number;

const URL_RE = P.sticky(P.URL_SRC);
const EMAIL_RE = P.sticky(P.EMAIL_SRC);
const REGISTRY_RE = P.sticky(P.REGISTRY_SRC, 'y'); // case-sensitive: roots and Title-Case continuation
const WINPATH_RE = P.sticky(P.WINPATH_SRC, 'y');
const ARN_RE = P.sticky(P.ARN_SRC);
const CERT_COLON_RE = P.sticky(P.CERT_COLON_SRC);
const SSDEEP_RE = P.sticky(P.SSDEEP_SRC, 'y');
const IPV6_RE = P.sticky(P.IPV6_SRC);
const VERSION_IP_RE = P.sticky(P.VERSION_IP_SRC);
const IPV4_RE = P.sticky(P.IPV4_SRC);
const HOST_RE = P.sticky(P.HOST_SRC);
const LONG_RE = P.sticky(P.LONG_SRC);

const WEB_SCHEMES = new Set(['http', 'https', 'ftp', 'ftps', 'sftp', 'ws', 'wss']);
const TRAILING_PUNCT_RE = /[.,;:!?'"]+$/;
const TRAILING_PUNCT_ARN_RE = /[.,;:'"]+$/;
const HEX_IN_PATH_RE = /(?<![0-9a-f])(?:[0-9a-f]{128}|[0-9a-f]{64}|[0-9a-f]{40}|[0-9a-f]{32})(?![0-9a-f])/gi;
const PLAY_ID_RE = /[?&]id=([A-Za-z][\w]*(?:\.[A-Za-z_][\w]*)+)/;

function execAt(re: RegExp, text: string, s: number): RegExpExecArray | null {
  re.lastIndex = s;
  return re.exec(text);
}

const idx = (m: RegExpExecArray, g: number): [number, number] => (m.indices?.[g] ?? [-1, -1]) as [number, number];

/** Drop unbalanced closing brackets and trailing punctuation at the end of [from, end). */
function trimEnd(text: string, from: number, end: number, punct = TRAILING_PUNCT_RE): number {
  for (;;) {
    const seg = text.slice(from, end);
    const p = punct.exec(seg);
    if (p) {
      end -= p[0].length;
      continue;
    }
    const last = seg[seg.length - 1];
    const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
    const open = last ? pairs[last] : undefined;
    if (open && seg.split(open).length < seg.split(last as string).length) {
      end -= 1;
      continue;
    }
    return end;
  }
}

const hasSpacedDefang = (raw: string): boolean => raw.includes(' ');

function mobileContext(text: string, s: number, raw: string): boolean {
  const dot = raw.indexOf('.');
  if (dot < 0 || !REVERSE_DNS_PREFIXES.has(raw.slice(0, dot).toLowerCase())) return false;
  return MOBILE_CONTEXT_RE.test(text.slice(Math.max(0, s - 48), s));
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
      c.add(a.kind, hs, he, a.normalized, defanged, { confidenceDelta: conf });
      return;
    default:
      if (a.drop) c.drop(a.kind, hs, he, a.drop.reason, a.drop.category, a.drop.category === 'invalid' ? undefined : a.normalized);
      else c.add(a.kind, hs, he, a.normalized, defanged, { confidenceDelta: conf });
  }
}

const tryUrl: Classifier = (c, s) => {
  const { text } = c;
  const m = execAt(URL_RE, text, s);
  if (!m) return -1;
  const scheme = refangScheme(m[1] as string);
  let end = s + m[0].length;
  const [ps] = idx(m, 7);
  if (ps >= 0) end = Math.max(ps, trimEnd(text, ps, end));
  const hostRaw = m[4] as string;
  let [hs, he] = idx(m, 4);
  let hostNorm: string;
  let hostDrop: { reason: string; category: 'invalid' | 'reserved' | 'benign' | 'ambiguous' } | undefined;
  const hostDefanged = isDefanged(hostRaw);
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
      const verdict = ipv6Verdict(v6.value.addr, v6.value.canonical);
      if (verdict) {
        hostDrop = verdict;
        c.drop('ipv6', hs, he, verdict.reason, verdict.category, v6.value.canonical);
      } else c.add('ipv6', hs, he, v6.value.canonical, false);
    }
  } else {
    const a = assessHost(hostRaw, hostDefanged, 'url', c.fileContext, hasSpacedDefang(hostRaw));
    if (a.kind === 'ipv4' || a.kind === 'domain' || a.kind === 'onion') {
      hostNorm = a.normalized;
      hostDrop = a.drop;
      emitHost(c, a, hs, he, hostDefanged);
    } else {
      hostNorm = hostRaw.toLowerCase();
      hostDrop = { reason: 'invalid URL host', category: 'invalid' };
    }
  }
  if (!WEB_SCHEMES.has(scheme)) return end; // tcp://, udp://, ssh://…: the host is the indicator
  const port = m[6] ?? '';
  if (port && Number(port) > 65535) hostDrop = { reason: 'invalid URL (port > 65535)', category: 'invalid' };
  const normalized = normalizeUrl({ scheme, userinfo: (m[3] ?? '').replace(/(?:@|\[@\])$/, ''), host: hostNorm, port, path: ps >= 0 ? text.slice(ps, end) : '' });
  const defanged = hostDefanged || scheme !== (m[1] as string) || m[2] !== '://' || isDefanged(text.slice(he, end));
  if (hostDrop) c.drop('url', s, end, hostDrop.reason, hostDrop.category, hostDrop.category === 'invalid' ? undefined : normalized);
  else c.add('url', s, end, normalized, defanged);
  if (ps >= 0 && hostDrop?.category === 'benign') extractFromReferenceUrl(c, hostNorm, ps, end);
  return end;
};

/** Hashes in analysis-service links (virustotal.com/gui/file/<sha256>) and app ids in store links. */
function extractFromReferenceUrl(c: Collector, host: string, ps: number, end: number): void {
  const reg = registrableDomain(host);
  const path = c.text.slice(ps, end);
  if (reg && (HASH_IN_PATH_HOSTS.has(reg) || HASH_IN_PATH_HOSTS.has(host))) {
    HEX_IN_PATH_RE.lastIndex = 0;
    for (let m = HEX_IN_PATH_RE.exec(path); m; m = HEX_IN_PATH_RE.exec(path)) {
      emitHex(c, ps + m.index, ps + m.index + m[0].length, m[0]);
    }
  }
  if (host === 'play.google.com') {
    const m = PLAY_ID_RE.exec(path);
    if (m?.[1]) {
      const st = ps + m.index + m[0].length - m[1].length;
      c.add('mobile-id', st, st + m[1].length, m[1], false, { confidenceDelta: 0.2, subtype: 'android' });
    }
  }
}

const tryEmail: Classifier = (c, s) => {
  const { text } = c;
  const m = execAt(EMAIL_RE, text, s);
  if (!m) return -1;
  const end = s + m[0].length;
  const hostRaw = m[3] as string;
  const defanged = isDefanged(m[0]);
  const a = assessHost(hostRaw, isDefanged(hostRaw), 'email', c.fileContext);
  if (a.kind !== 'domain' && a.kind !== 'onion') return -1;
  const normalized = normalizeEmail(m[1] as string, a.normalized);
  // a mailbox at a benign provider (gmail.com…) is still an indicator; reserved/invalid domains are not
  if (a.drop && a.drop.category !== 'benign') {
    c.drop('email', s, end, a.drop.reason, a.drop.category, a.drop.category === 'invalid' ? undefined : normalized);
  } else c.add('email', s, end, normalized, defanged);
  return end;
};

const REG_TERMINATOR_RE = /^(?:$|[\r\n"'`)\],;]|\.(?:\s|$)|:\s)/;

const tryRegistry: Classifier = (c, s) => {
  const { text } = c;
  const m = execAt(REGISTRY_RE, text, s);
  if (!m) return -1;
  let end = s + m[0].length;
  let value = m[0];
  const lastSep = value.lastIndexOf('\\');
  const lastComp = value.slice(lastSep + 1);
  const sp = lastComp.indexOf(' ');
  // a trailing multi-word component ("Volatile Environment") only when the key clearly ends there
  if (sp >= 0 && !REG_TERMINATOR_RE.test(text.slice(end, end + 2))) {
    end = s + lastSep + 1 + sp;
    value = text.slice(s, end);
  }
  end = trimEnd(text, s + (m[1] as string).length + 1, end);
  const path = text.slice(s + (m[1] as string).length + (m[2] as string).length, end);
  if (path.replace(/\\/g, '').length === 0) return -1;
  c.add('registry-key', s, end, normalizeRegistryKey(m[1] as string, path), false);
  return end;
};

const FILE_IN_COMP_RE = /\.([A-Za-z0-9]{1,12})(?= |$)/g;

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
  c.add('filename', s, end, normalizeWindowsPath(text.slice(s, end)), false, { subtype: 'path' });
  if (PROCESS_EXTS.has(ext)) c.add('process', nameStart, end, text.slice(nameStart, end).toLowerCase(), false);
  return end;
};

const tryArn: Classifier = (c, s) => {
  const m = execAt(ARN_RE, c.text, s);
  if (!m) return -1;
  const end = trimEnd(c.text, s + 12, s + m[0].length, TRAILING_PUNCT_ARN_RE);
  c.add('cloud-id', s, end, c.text.slice(s, end), false, { subtype: 'aws-arn', confidenceDelta: 0.2 });
  return end;
};

const tryCertColon: Classifier = (c, s) => {
  const m = execAt(CERT_COLON_RE, c.text, s);
  if (!m) return -1;
  const end = s + m[0].length;
  const ctx = CERT_CONTEXT_RE.test(c.text.slice(Math.max(0, s - 64), s));
  const subtype = m[0].length === 59 ? 'sha1' : 'sha256';
  c.add('cert', s, end, normalizeFingerprint(m[0]), false, { subtype, confidenceDelta: ctx ? 0.1 : -0.15 });
  return end;
};

const trySsdeep: Classifier = (c, s) => {
  const m = execAt(SSDEEP_RE, c.text, s);
  if (!m || !isSsdeepBlockSize(Number(m[1])) || (m[2] as string).length < 6 || !/[A-Za-z]/.test(m[2] as string)) return -1;
  const end = s + m[0].length;
  c.add('ssdeep', s, end, m[0], false);
  return end;
};

const tryIpv6: Classifier = (c, s) => {
  const m = execAt(IPV6_RE, c.text, s);
  if (!m) return -1;
  const end = s + m[0].length;
  const v6 = parseIpv6(m[0]);
  if (!v6.ok) {
    if (!looksLikeIpv6Attempt(m[0])) return -1;
    c.drop('ipv6', s, end, v6.reason, 'invalid');
    return end;
  }
  const verdict = ipv6Verdict(v6.value.addr, v6.value.canonical);
  if (verdict) c.drop('ipv6', s, end, verdict.reason, verdict.category, v6.value.canonical);
  else c.add('ipv6', s, end, v6.value.canonical, false);
  return end;
};

const tryVersionIp: Classifier = (c, s) => {
  const m = execAt(VERSION_IP_RE, c.text, s);
  if (!m) return -1;
  const [vs, ve] = idx(m, 1);
  c.drop('ipv4', vs, ve, 'looks like a version number', 'ambiguous');
  return s + m[0].length;
};

const tryIpv4: Classifier = (c, s) => {
  const m = execAt(IPV4_RE, c.text, s);
  if (!m) return -1;
  const raw = m[1] as string;
  const ipEnd = s + raw.length;
  const defanged = raw.length > 15 || isDefanged(raw);
  const a = assessHost(raw, defanged, 'text', c.fileContext);
  if (a.kind === 'ipv4' && !a.drop && !defanged) {
    const ctx = ipv4ContextVerdict(c.text, s, ipEnd);
    if (ctx) {
      c.drop('ipv4', s, ipEnd, ctx.reason, ctx.category, a.normalized);
      return s + m[0].length;
    }
  }
  emitHost(c, a, s, ipEnd, defanged);
  return s + m[0].length;
};

const tryHost: Classifier = (c, s) => {
  const { text } = c;
  const m = execAt(HOST_RE, text, s);
  if (!m) return -1;
  const raw = m[1] as string;
  const he = s + raw.length;
  const defanged = isDefanged(raw);
  const spaced = defanged && hasSpacedDefang(raw);
  const mctx = !defanged && mobileContext(text, s, raw);
  const a = assessHost(raw, defanged, 'text', c.fileContext, spaced, mctx);
  if (a.kind === 'ipv4') return -1;
  const conf = a.kind === 'mobile-id' ? (mctx ? 0.25 : 0) : spaced ? -0.2 : 0;
  emitHost(c, a, s, he, defanged, conf);
  // a file name is not followed by a URL path: only skip the tail for hosts
  return a.kind === 'filename' || a.kind === 'process' ? he : s + m[0].length;
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
  if ((k.value === 'sha1' || k.value === 'sha256') && CERT_CONTEXT_RE.test(c.text.slice(Math.max(0, s - 64), s))) {
    c.add('cert', s, end, lower, false, { subtype: k.value });
    return;
  }
  c.add(k.value, s, end, lower, false);
}

const AWS_KEY_PREFIX_RE = /^(?:AKIA|ASIA|AROA|AIDA|AGPA|AIPA|ANPA|ANVA|APKA|ABIA|ACCA)[A-Z0-9]{16}$/;

const tryLong: Classifier = (c, s) => {
  const m = execAt(LONG_RE, c.text, s);
  if (!m) return -1;
  const v = m[0];
  const end = s + v.length;
  if (v.length >= 32 && isHex(v)) emitHex(c, s, end, v);
  else if (v.length === 42 && isEthereumAddress(v)) c.add('eth', s, end, v.toLowerCase(), false);
  else if (v.length <= 35 && (v[0] === '1' || v[0] === '3') && isBitcoinAddress(v)) c.add('btc', s, end, v, false);
  else if (v.length >= 14 && (v[0] === 'b' || v[0] === 'B') && /^bc1/i.test(v) && isBitcoinAddress(v)) c.add('btc', s, end, v.toLowerCase(), false);
  else if (v.length === 95 && isMoneroAddress(v)) c.add('xmr', s, end, v, false);
  else if (v.length === 56 && isOnionLabel(v)) c.add('onion', s, end, `${v.toLowerCase()}.onion`, false, { confidenceDelta: -0.1 });
  else if (AWS_KEY_PREFIX_RE.test(v)) return end; // handled by the AWS key pass
  return end;
};

/** Classifiers in MASTER_ALTS order. */
export const CLASSIFIERS: readonly Classifier[] = [
  tryUrl,
  tryEmail,
  tryRegistry,
  tryWinPath,
  tryArn,
  tryCertColon,
  trySsdeep,
  tryIpv6,
  tryVersionIp,
  tryIpv4,
  tryHost,
  tryLong,
];

export type { HostWhere };
