/**
 * False-positive control. Every rule returns a human-readable reason (and a category) so dropped candidates can be
 * recorded instead of silently lost.
 */
import type { DropCategory } from './types.js';

export interface FpVerdict {
  reason: string;
  category: DropCategory;
}

const v = (reason: string, category: DropCategory): FpVerdict => ({ reason, category });

// ---- IPv4 ranges ---------------------------------------------------------------------------------------------

const ip4 = (a: number, b: number, c: number, d: number): number => ((a * 256 + b) * 256 + c) * 256 + d;

/** [network, prefix length, verdict]; first match wins, so more specific ranges come first. */
const IPV4_RANGES: ReadonlyArray<readonly [number, number, FpVerdict]> = [
  [ip4(255, 255, 255, 255), 32, v('broadcast address', 'reserved')],
  [ip4(0, 0, 0, 0), 8, v('reserved address ("this network", RFC 1122)', 'reserved')],
  [ip4(10, 0, 0, 0), 8, v('private address (RFC 1918)', 'reserved')],
  [ip4(172, 16, 0, 0), 12, v('private address (RFC 1918)', 'reserved')],
  [ip4(192, 168, 0, 0), 16, v('private address (RFC 1918)', 'reserved')],
  [ip4(100, 64, 0, 0), 10, v('shared address space (carrier-grade NAT, RFC 6598)', 'reserved')],
  [ip4(127, 0, 0, 0), 8, v('loopback address', 'reserved')],
  [ip4(169, 254, 0, 0), 16, v('link-local address', 'reserved')],
  [ip4(192, 0, 0, 0), 24, v('IETF protocol assignment (RFC 6890)', 'reserved')],
  [ip4(192, 0, 2, 0), 24, v('documentation range (RFC 5737)', 'reserved')],
  [ip4(198, 51, 100, 0), 24, v('documentation range (RFC 5737)', 'reserved')],
  [ip4(203, 0, 113, 0), 24, v('documentation range (RFC 5737)', 'reserved')],
  [ip4(198, 18, 0, 0), 15, v('benchmarking range (RFC 2544)', 'reserved')],
  [ip4(192, 88, 99, 0), 24, v('deprecated 6to4 relay range (RFC 7526)', 'reserved')],
  [ip4(224, 0, 0, 0), 4, v('multicast address', 'reserved')],
  [ip4(240, 0, 0, 0), 4, v('reserved address (RFC 1112)', 'reserved')],
];

const PUBLIC_RESOLVERS_V4 = new Set([
  '8.8.8.8', '8.8.4.4', // Google
  '1.1.1.1', '1.0.0.1', '1.1.1.2', '1.0.0.2', '1.1.1.3', '1.0.0.3', // Cloudflare
  '9.9.9.9', '149.112.112.112', '9.9.9.10', '149.112.112.10', '9.9.9.11', // Quad9
  '208.67.222.222', '208.67.220.220', '208.67.222.123', '208.67.220.123', // OpenDNS
  '4.2.2.1', '4.2.2.2', '4.2.2.3', '4.2.2.4', '4.2.2.5', '4.2.2.6', // Level3
  '64.6.64.6', '64.6.65.6', // Verisign
  '94.140.14.14', '94.140.15.15', // AdGuard
  '185.228.168.9', '185.228.169.9', // CleanBrowsing
  '76.76.2.0', '76.76.10.0', // Control D
  '8.26.56.26', '8.20.247.20', // Comodo
]);

const PUBLIC_RESOLVERS_V6 = new Set([
  '2001:4860:4860::8888', '2001:4860:4860::8844',
  '2606:4700:4700::1111', '2606:4700:4700::1001',
  '2620:fe::fe', '2620:fe::9', '2620:fe::10', '2620:fe::11',
  '2620:119:35::35', '2620:119:53::53',
]);

const MASK_OCTETS = new Set([0, 128, 192, 224, 240, 248, 252, 254, 255]);

function isNetmask(n: number): boolean {
  // contiguous ones followed by zeros, at least /8 (tested first: it rejects nearly every address at once), and
  // each octet a mask octet
  if (n < ip4(255, 0, 0, 0)) return false;
  for (let i = 0; i < 4; i++) if (!MASK_OCTETS.has(Math.floor(n / 256 ** (3 - i)) % 256)) return false;
  const inv = 4294967295 - n;
  return (inv & (inv + 1)) === 0;
}

/** IPV4_RANGES as parallel columns, each range's end computed once: the verdict runs once per distinct address. */
const RANGE_STARTS = Float64Array.from(IPV4_RANGES, ([net]) => net);
const RANGE_ENDS = Float64Array.from(IPV4_RANGES, ([net, bits]) => net + 2 ** (32 - bits));
const RANGE_VERDICTS = IPV4_RANGES.map(([, , verdict]) => verdict);

export function ipv4Verdict(n: number, dotted: string): FpVerdict | null {
  if (isNetmask(n) && n !== 4294967295) return v('looks like a netmask', 'ambiguous');
  for (let i = 0; i < RANGE_STARTS.length; i++) {
    if (n >= (RANGE_STARTS[i] as number) && n < (RANGE_ENDS[i] as number)) return RANGE_VERDICTS[i] as FpVerdict;
  }
  if (PUBLIC_RESOLVERS_V4.has(dotted)) return v('benign infrastructure (public DNS resolver)', 'benign');
  return null;
}

// ---- IPv6 ranges ---------------------------------------------------------------------------------------------

/** `p`: the 8 groups of a valid address; `canonical`: its RFC 5952 form. */
export function ipv6Verdict(p: readonly number[], canonical: string): FpVerdict | null {
  const [p0 = 0, p1 = 0, p2 = 0, p3 = 0, p4 = 0, p5 = 0, p6 = 0, p7 = 0] = p;
  const upperZero = p0 === 0 && p1 === 0 && p2 === 0 && p3 === 0 && p4 === 0;
  if (upperZero && p5 === 0 && p6 === 0 && p7 === 0) return v('unspecified address', 'reserved');
  if (upperZero && p5 === 0 && p6 === 0 && p7 === 1) return v('loopback address', 'reserved');
  if (upperZero && p5 === 0xffff) return ipv4Verdict(p6 * 65536 + p7, `${p6 >> 8}.${p6 & 255}.${p7 >> 8}.${p7 & 255}`);
  if (p0 === 0x2001 && p1 === 0x0db8) return v('documentation range (RFC 3849)', 'reserved');
  if (p0 === 0x3fff && p1 >> 12 === 0) return v('documentation range (RFC 9637)', 'reserved');
  if (p0 === 0x2001 && p1 === 0x0002 && p2 === 0) return v('benchmarking range (RFC 5180)', 'reserved');
  if (p0 === 0x0100 && p1 === 0 && p2 === 0 && p3 === 0) return v('discard-only range (RFC 6666)', 'reserved');
  if ((p0 & 0xffc0) === 0xfe80) return v('link-local address', 'reserved');
  if ((p0 & 0xffc0) === 0xfec0) return v('private address (deprecated site-local)', 'reserved');
  if ((p0 & 0xfe00) === 0xfc00) return v('private address (unique local, RFC 4193)', 'reserved');
  if (p0 >> 8 === 0xff) return v('multicast address', 'reserved');
  if (p0 >> 13 !== 1) return v('reserved address (outside global unicast 2000::/3)', 'reserved');
  if (PUBLIC_RESOLVERS_V6.has(canonical)) return v('benign infrastructure (public DNS resolver)', 'benign');
  return null;
}

// ---- IP context: version numbers, phone numbers ------------------------------------------------------------

// Sticky lookbehinds/lookaheads evaluated once at the candidate's ends (no slicing, no scanning). The combined
// CONTEXT_* regexes are cheap "anything at all?" tests; the specific ones only run when they match.
const VERSION_WORDS = String.raw`\bv|\bver\.?|\bversion|\bbuild|\brelease|\bfirmware|\brev\.?|\brevision|\bpatch(?:ed)?|\bupdate|\bupgrade(?: to)?|\bkernel|\bfixed in|\bprior to|\bbefore|\bthrough|\bup to`;
const PHONE_BEFORE = String.raw`\+\d{1,3}[\s.-]{0,3}|\(\d{1,4}\)\s{0,2}|\b(?:tel|phone|fax|call|mobile|cell|ph|hotline|whatsapp)\b\.?\s{0,3}[:#]?\s{0,3}(?:\+?\d{1,3}[\s.-]{0,3})?`;
const VERSION_BEFORE_RE = new RegExp(String.raw`(?<=(?:${VERSION_WORDS})\s{0,3}[:#]?\s{0,3})`, 'iy');
const PHONE_BEFORE_RE = new RegExp(String.raw`(?<=${PHONE_BEFORE})`, 'iy');
const VERSION_AFTER = String.raw`-(?:alpha|beta|rc|dev|snapshot|release)|\+build|\s*\((?:build|x64|x86)|\s+(?:and (?:earlier|later|prior)|or (?:earlier|later)|(?:build|release)\b)`;
const PHONE_AFTER = String.raw`[-.\s]\d{2,4}\b(?![.]\d)`;
const VERSION_AFTER_RE = new RegExp(VERSION_AFTER, 'iy');
const CONTEXT_AFTER_RE = new RegExp(`${VERSION_AFTER}|${PHONE_AFTER}`, 'iy');

function stickyTest(re: RegExp, text: string, at: number): boolean {
  re.lastIndex = at;
  return re.test(text);
}

/** Context-based rejection of a dotted quad (plain, non-defanged occurrences only). */
export function ipv4ContextVerdict(text: string, start: number, end: number): FpVerdict | null {
  // what precedes: skip up to 3 spaces/':'/'#' and look at one character
  let i = start - 1;
  while (i >= 0 && i > start - 5 && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 58 || text.charCodeAt(i) === 35)) i--;
  const prev = i >= 0 ? text.charCodeAt(i) | 32 : 0;
  const isLetter = prev >= 97 && prev <= 122;
  if (isLetter && stickyTest(VERSION_BEFORE_RE, text, start)) return v('looks like a version number', 'ambiguous');
  if (prev !== 0 && prev !== 42 /* newline|32 */ && stickyTest(PHONE_BEFORE_RE, text, start)) return v('looks like a phone number', 'ambiguous');
  const next = text.charCodeAt(end);
  if (next === 45 || next === 43 || next === 32 || next === 46 || next === 40 || next === 9) {
    if (stickyTest(CONTEXT_AFTER_RE, text, end)) {
      return stickyTest(VERSION_AFTER_RE, text, end) ? v('looks like a version number', 'ambiguous') : v('looks like a phone number', 'ambiguous');
    }
  }
  return null;
}

// ---- domains ---------------------------------------------------------------------------------------------------

// A Map, not an object literal: a TLD such as `constructor` must not find Object.prototype's members.
const RESERVED_TLDS: ReadonlyMap<string, string> = new Map([
  ['test', 'reserved domain (RFC 2606/6761)'],
  ['example', 'reserved domain (RFC 2606/6761)'],
  ['invalid', 'reserved domain (RFC 2606/6761)'],
  ['localhost', 'reserved domain (RFC 2606/6761)'],
  ['local', 'reserved domain (mDNS, RFC 6762)'],
  ['internal', 'private-use domain (.internal)'],
  ['lan', 'private-use domain (not a public TLD)'],
  ['home', 'private-use domain (not a public TLD)'],
  ['corp', 'private-use domain (not a public TLD)'],
  ['localdomain', 'private-use domain (not a public TLD)'],
  ['intranet', 'private-use domain (not a public TLD)'],
]);

/** The documentation domains are example.com, .net, .org and .edu. */
const DOC_TLDS = new Set(['com', 'net', 'org', 'edu']);

/** Reserved / documentation names (RFC 2606, 6761, 6762, 8375). `ascii` is lowercase and punycoded. */
export function reservedDomainVerdict(ascii: string, tld: string): FpVerdict | null {
  const r = RESERVED_TLDS.get(tld);
  if (r) return v(r, 'reserved');
  if (ascii === 'home.arpa' || ascii.endsWith('.home.arpa')) return v('reserved domain (home.arpa, RFC 8375)', 'reserved');
  if (tld === 'arpa') return v('infrastructure domain (.arpa)', 'reserved');
  // the last two labels read in place: "example." and one of DOC_TLDS (no slice of the name per host)
  const sld = ascii.lastIndexOf('.', ascii.length - tld.length - 2) + 1;
  if (DOC_TLDS.has(tld) && ascii.length - sld === 8 + tld.length && ascii.startsWith('example.', sld)) {
    return v('documentation domain (RFC 2606)', 'reserved');
  }
  return null;
}

/** Registrable domains of well-known vendors, references and infrastructure that reports cite, not IOCs. */
const BENIGN_DOMAINS = new Set([
  // references & vulnerability databases
  'mitre.org', 'nist.gov', 'cve.org', 'first.org', 'cisa.gov', 'us-cert.gov', 'cert.org', 'exploit-db.com',
  'cvedetails.com', 'owasp.org', 'ietf.org', 'rfc-editor.org', 'iana.org', 'w3.org', 'wikipedia.org',
  'attack.mitre.org', 'mitre-attack.github.io', 'sans.org', 'securityfocus.com', 'packetstormsecurity.com',
  // analysis services (cited as evidence)
  'virustotal.com', 'hybrid-analysis.com', 'any.run', 'joesandbox.com', 'tria.ge', 'urlscan.io', 'abuse.ch',
  'shodan.io', 'censys.io', 'greynoise.io', 'otx.alienvault.com', 'alienvault.com', 'malshare.com',
  // major vendors / platforms
  'microsoft.com', 'windows.com', 'windowsupdate.com', 'office.com', 'live.com', 'msn.com', 'bing.com',
  'google.com', 'googleapis.com', 'gstatic.com', 'youtube.com', 'android.com', 'chromium.org', 'gmail.com',
  'apple.com', 'icloud.com', 'amazon.com', 'aws.amazon.com', 'github.com', 'gitlab.com', 'python.org',
  'mozilla.org', 'cloudflare.com', 'akamai.com', 'oracle.com', 'cisco.com', 'vmware.com', 'adobe.com',
  'ibm.com', 'redhat.com', 'ubuntu.com', 'debian.org', 'kernel.org', 'linkedin.com', 'twitter.com', 'x.com',
  'facebook.com', 'instagram.com', 'reddit.com', 'medium.com', 'npmjs.com', 'pypi.org', 'docker.com',
  'fortinet.com', 'paloaltonetworks.com', 'crowdstrike.com', 'mandiant.com', 'sentinelone.com',
  'kaspersky.com', 'eset.com', 'sophos.com', 'trendmicro.com', 'checkpoint.com', 'proofpoint.com',
  'talosintelligence.com', 'unit42.paloaltonetworks.com', 'securelist.com', 'welivesecurity.com',
  'bleepingcomputer.com', 'thehackernews.com', 'krebsonsecurity.com', 'schema.org', 'opencti.io',
]);

export function benignDomainVerdict(registrable: string | null, host: string): FpVerdict | null {
  if ((registrable && BENIGN_DOMAINS.has(registrable)) || BENIGN_DOMAINS.has(host)) {
    return v('benign infrastructure (vendor/reference site)', 'benign');
  }
  return null;
}

/** Hosts of analysis services whose URL paths carry hashes worth extracting. */
export const HASH_IN_PATH_HOSTS = new Set([
  'virustotal.com', 'hybrid-analysis.com', 'any.run', 'joesandbox.com', 'tria.ge', 'abuse.ch', 'malshare.com',
  'otx.alienvault.com', 'alienvault.com',
]);

// ---- names that only look like domains -------------------------------------------------------------------------

/** File extensions that are NOT TLDs: a host-like token ending in one of these is a file name. */
export const FILE_EXTS = new Set([
  'exe', 'dll', 'sys', 'scr', 'bat', 'cmd', 'ps1', 'psm1', 'psd1', 'vbs', 'vbe', 'js', 'jse', 'hta', 'wsf', 'wsh',
  'lnk', 'msi', 'msp', 'jar', 'class', 'doc', 'docx', 'docm', 'dot', 'dotm', 'xls', 'xlsx', 'xlsm', 'xlsb', 'xll',
  'xlam', 'ppt', 'pptx', 'pptm', 'pdf', 'rtf', 'odt', 'rar', '7z', 'iso', 'img', 'vhd', 'vhdx', 'tar', 'gz', 'tgz',
  'bz2', 'xz', 'cab', 'arj', 'lzh', 'ace', 'apk', 'ipa', 'dmg', 'pkg', 'deb', 'rpm', 'so', 'dylib', 'elf', 'bin',
  'dat', 'tmp', 'log', 'ini', 'cfg', 'conf', 'txt', 'csv', 'xml', 'json', 'yaml', 'yml', 'html', 'htm', 'php',
  'asp', 'aspx', 'jsp', 'cgi', 'pyc', 'pyw', 'vba', 'one', 'chm', 'cpl', 'ocx', 'drv', 'efi', 'ko', 'plist',
  'lua', 'hwp', 'pif', 'application', 'appx', 'msix', 'reg', 'inf', 'crx', 'xpi', 'wasm', 'db', 'sqlite',
  'bak', 'pem', 'key', 'crt', 'cer', 'pfx', 'p12', 'eml', 'msg', 'png', 'jpg', 'jpeg', 'gif', 'bmp', 'svg',
  'ico', 'mp3', 'mp4', 'avi', 'wav', 'ts', 'tsx', 'jsx', 'vue', 'go', 'java', 'kt', 'swift', 'rb', 'c', 'h',
  'cpp', 'hpp', 'cs', 'dmp', 'evtx', 'etl', 'pcap', 'pcapng', 'yar', 'yara', 'ldb', 'torrent', 'iqy', 'slk', 'url',
]);

/**
 * Extensions that are also TLDs (.zip, .py, .sh…) and common in reports as file names: files unless defanged or
 * inside a URL. Members of FILE_EXTS that happen to be TLDs (.so, .one…) are treated the same way by the caller.
 */
const AMBIGUOUS_EXTS = new Set(['zip', 'mov', 'py', 'sh', 'md', 'rs', 'pm']);
/** With fileContext, more extensions are read as files. */
const AMBIGUOUS_EXTS_FILE_CONTEXT = new Set([...AMBIGUOUS_EXTS, 'pl', 'ai', 'ps', 'sx', 'mo', 'run', 'app', 'cc']);

export const isAmbiguousExt = (ext: string, fileContext: boolean): boolean =>
  (fileContext ? AMBIGUOUS_EXTS_FILE_CONTEXT : AMBIGUOUS_EXTS).has(ext);

/** Executable image extensions: a bare name with one of these is a process name. */
export const PROCESS_EXTS = new Set(['exe', 'scr', 'pif', 'cpl']);

/** First labels of reverse-DNS identifiers (Android packages / iOS bundle ids). */
export const REVERSE_DNS_PREFIXES = new Set([
  'com', 'org', 'net', 'io', 'me', 'co', 'de', 'uk', 'fr', 'ru', 'cn', 'jp', 'kr', 'br', 'in', 'it', 'es', 'nl',
  'app', 'tv', 'edu', 'gov', 'info', 'biz', 'us', 'ca', 'au',
]);

/** Two-label tokens that are code (member access), not domains: `self.name`, `window.location`… */
const CODE_OBJECTS = new Set([
  'this', 'self', 'window', 'document', 'obj', 'object', 'data', 'user', 'os', 'sys', 'req', 'res', 'request',
  'response', 'err', 'error', 'args', 'argv', 'console', 'math', 'json', 'string', 'array', 'system', 'config',
  'settings', 'module', 'exports', 'process', 'event', 'e', 'el', 'ctx', 'context', 'item', 'node', 'file', 'np',
  'pd', 'result', 'msg', 'app', 'client', 'server', 'db', 'model', 'props', 'state',
]);

/** Well-known product names written like domains that are not cited as indicators. */
const TECH_NAMES = new Set(['node.js', 'vue.js', 'next.js', 'nuxt.js', 'react.js', 'express.js', 'three.js', 'd3.js', 'chart.js', 'ember.js', 'angular.js', 'asp.net', 'ado.net', 'vb.net']);

export const isTechName = (lowerHost: string): boolean => TECH_NAMES.has(lowerHost);

const STOPWORDS = new Set([
  'a', 'an', 'the', 'of', 'to', 'in', 'on', 'at', 'by', 'for', 'and', 'or', 'is', 'are', 'was', 'be', 'as', 'it',
  'this', 'that', 'with', 'from', 'we', 'you', 'they', 'he', 'she', 'not', 'no', 'so', 'if', 'but', 'its', 'our',
]);

/**
 * Prose/code heuristics on a non-defanged host-like token (`raw` as written, case preserved; `lower` its lowercase).
 * The labels are read in place by the dots' positions (no array of labels per host; only the rare " dot " case
 * splits).
 */
const CODE_OBJECT_MAX = Math.max(...[...CODE_OBJECTS].map((o) => o.length));
export function proseHostVerdict(raw: string, lower: string, spacedDefang: boolean): FpVerdict | null {
  if (TECH_NAMES.has(lower)) return v('product name, not an indicator', 'ambiguous');
  if (spacedDefang && raw.split('.').some((l) => STOPWORDS.has(l.toLowerCase()))) {
    return v('prose, not a defanged domain (" dot " between words)', 'ambiguous');
  }
  const dot = raw.indexOf('.');
  if (dot >= 0 && raw.indexOf('.', dot + 1) < 0) {
    // two labels
    if (dot <= CODE_OBJECT_MAX && CODE_OBJECTS.has(raw.slice(0, dot))) return v('looks like code (member access)', 'ambiguous');
    // "attack.In" / "done.It": a sentence with a missing space after the period
    if (isTitleWord(raw, dot + 1, raw.length) && isLowerWord(raw, 0, dot)) return v('looks like prose (missing space after a period)', 'ambiguous');
  }
  return null;
}

/** /^[A-Z][a-z]+$/ on raw[from, to). */
function isTitleWord(raw: string, from: number, to: number): boolean {
  const c = raw.charCodeAt(from);
  return to - from >= 2 && c >= 65 && c <= 90 && isLowerWord(raw, from + 1, to);
}

/** /^[a-z]+$/ on raw[from, to). */
function isLowerWord(raw: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const c = raw.charCodeAt(i);
    if (c < 97 || c > 122) return false;
  }
  return true;
}

// ---- hashes / keys ------------------------------------------------------------------------------------------

const EMPTY_INPUT_HASHES = new Set([
  'd41d8cd98f00b204e9800998ecf8427f',
  'da39a3ee5e6b4b0d3255bfef95601890afd80709',
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e',
]);

/** The one empty-input hash of each length: a string comparison (it fails at the first character) needs no hash of the value. */
const EMPTY_INPUT_HASH_BY_LENGTH = new Map([...EMPTY_INPUT_HASHES].map((h) => [h.length, h]));

export function hashVerdict(lowerHex: string): FpVerdict | null {
  if (EMPTY_INPUT_HASH_BY_LENGTH.get(lowerHex.length) === lowerHex) return v('benign (hash of empty input)', 'benign');
  return null;
}

export function awsKeyVerdict(key: string): FpVerdict | null {
  if (key.endsWith('EXAMPLE')) return v('documentation example (AWS)', 'reserved');
  return null;
}

const CERT_WORDS_RE = /thumbprint|fingerprint|certificate|\bcert\b|x\.?509|\bssl\b|\btls\b/i;
const MOBILE_WORDS_RE = /package|bundle|app(?:lication)?[ _-]?id|\bapk\b|android|\bios\b|play store|app store/i;

/**
 * Does the same line, within `width` characters before `start`, match `re`? (forward scan of a short slice; both
 * word lists' shortest match is 3 characters, so a shorter segment — "- " before a listed hash — needs no slice)
 */
function lineContext(re: RegExp, text: string, start: number, width: number): boolean {
  const floor = Math.max(0, start - width);
  let from = start;
  while (from > floor && text.charCodeAt(from - 1) !== 10) from--;
  return start - from >= 3 && re.test(text.slice(from, start));
}

/** Context that makes 40/64 hex a certificate fingerprint rather than a file hash. */
export const hasCertContext = (text: string, start: number): boolean => lineContext(CERT_WORDS_RE, text, start, 48);
/** Context that makes a reverse-DNS name a mobile app id with high confidence. */
export const hasMobileContext = (text: string, start: number): boolean => lineContext(MOBILE_WORDS_RE, text, start, 48);
