/**
 * What is a host-like token (`a.b.c`, possibly defanged)? An IPv4 address, a domain, an onion service, a file or
 * process name, a mobile app id — or nothing worth reporting. Pure and cached: reports repeat the same hosts.
 */
import { parse } from 'tldts';
import {
  benignDomainVerdict,
  FILE_EXTS,
  type FpVerdict,
  ipv4Verdict,
  isAmbiguousExt,
  isTechName,
  PROCESS_EXTS,
  proseHostVerdict,
  reservedDomainVerdict,
  REVERSE_DNS_PREFIXES,
} from './false-positives.fns.js';
import { KeyedIndex } from './keyed-index.js';
import { normalizeHost } from './normalize.fns.js';
import { refangHost } from './refang.fns.js';
import {
  checkHostnameSyntax,
  dottedQuadValue,
  IPV4_LEADING_ZEROS,
  IPV4_LEADING_ZEROS_REASON,
  IPV4_OCTET_REASON,
  isOnionLabel,
  NOT_DOTTED_QUAD,
} from './validate.fns.js';

export type HostWhere = 'text' | 'url' | 'email';

export type HostAssessment =
  /** An address/name of that kind; `drop` set when it must not be kept (with the reason). */
  | { kind: 'ipv4' | 'domain' | 'onion'; normalized: string; drop?: FpVerdict }
  /** Not a host at all but a file/process name or app id; `domainDrop` records why it is not a domain. */
  | { kind: 'filename' | 'process' | 'mobile-id'; normalized: string; domainDrop?: FpVerdict }
  /** Nothing to report (numbers like 3.14, abbreviations like e.g, single labels). */
  | { kind: 'ignore' };

const IGNORE: HostAssessment = { kind: 'ignore' };
const ALPHA_TLD_RE = /^(?:[a-z\u00c0-\uffff]{2,63}|xn--[a-z0-9-]{2,59})$/;
const MOBILE_STRONG_PREFIXES = new Set(['com', 'org', 'net', 'io']);
const MOBILE_NOT_LAST = new Set(['com', 'net', 'org', 'io', 'html', 'htm', 'php']);

const tldCache = new Map<string, boolean>();
/** Is `tld` (lowercase, may be Unicode) a public ICANN top-level domain? */
export function isKnownTld(tld: string): boolean {
  let known = tldCache.get(tld);
  if (known === undefined) {
    const ascii = normalizeHost(`x.${tld}`);
    const p = ascii ? parse(ascii, { extractHostname: false, detectIp: false }) : null;
    known = !!p && p.isIcann === true && p.publicSuffix === ascii.slice(2);
    tldCache.set(tld, known);
  }
  return known;
}

/** Assessments keyed by (flag combination, raw host): no string built on lookup; cleared when full. */
const cacheIndex = new KeyedIndex();
const cached: HostAssessment[] = [];
const CACHE_MAX = 20_000;

/** Entries the host-assessment cache holds now, and its bound (for the test that pins the bound). */
export function hostCacheStats(): { size: number; max: number } {
  return { size: cacheIndex.size, max: CACHE_MAX };
}

/**
 * @param raw host as written (may be defanged), no port/path
 * @param defanged whether `raw` contains a defang form
 * @param spacedDefang whether the defang form is the " dot " kind (weaker evidence)
 * @param mobileContext whether text before it mentions a package/bundle/app id
 */
export function assessHost(
  raw: string,
  defanged: boolean,
  where: HostWhere,
  fileContext: boolean,
  spacedDefang = false,
  mobileContext = false,
): HostAssessment {
  // A plain dotted quad is assessed without the cache: its assessment (one walk of at most 15 digits and dots, the
  // range table) costs about what the cache's hash and probe cost, its answer depends on nothing but the text, and
  // addresses (a third of the bench corpus's distinct hosts: 25,556 of 82,968 misses per 50 MB scan) filled the
  // cache, emptying it of the domains whose assessment (public suffix, prose and file-name rules) is worth keeping.
  // The value stays a slice of the text, as every other extracted value is; only the cache, which outlives texts,
  // needs its own copies.
  if (!defanged) {
    const ip = dottedQuadValue(raw);
    if (ip !== NOT_DOTTED_QUAD) return ipv4Assessment(raw, ip);
  }
  const flags = (where === 'text' ? 0 : where === 'url' ? 16 : 32) | (defanged ? 8 : 0) | (fileContext ? 4 : 0) | (spacedDefang ? 2 : 0) | (mobileContext ? 1 : 0);
  const i = cacheIndex.find(flags, raw);
  if (i >= 0) return cached[i] as HostAssessment;
  // The cache outlives the text: `raw` is a slice of it, which V8 keeps as a view holding the whole text alive (a
  // 30-character host could keep a megabyte item in memory for as long as it is cached). The key and the strings
  // derived from it are built from a copy of its characters instead.
  const own = ownCopy(raw);
  const a = assessUncached(own, defanged, where, fileContext, spacedDefang, mobileContext);
  if (cacheIndex.size >= CACHE_MAX) cacheIndex.clear();
  // written in place: emptying the array when the cache fills let its storage go, and pushing regrew it, on every
  // fill (a long text fills it several times); an entry past the index's size is never read, and is replaced
  cached[cacheIndex.insert(flags, own)] = a;
  return a;
}

/** `s`'s characters in a string of their own (concatenating and slicing flattens; it is not a view of `s`'s source). */
function ownCopy(s: string): string {
  return ` ${s}`.slice(1);
}

/** The assessment of `host`, a dotted quad whose `dottedQuadValue` is `ip` (an address, or a failure code < 0). */
function ipv4Assessment(host: string, ip: number): HostAssessment {
  if (ip < 0) {
    const reason = ip === IPV4_LEADING_ZEROS ? IPV4_LEADING_ZEROS_REASON : IPV4_OCTET_REASON;
    return { kind: 'ipv4', normalized: host, drop: { reason, category: 'invalid' } };
  }
  // only the canonical text (octets ≤ 255 without leading zeros) gets here, so `host` is the normalized form as
  // is: no string rebuilt from the number per address
  const verdict = ipv4Verdict(ip, host);
  return verdict ? { kind: 'ipv4', normalized: host, drop: verdict } : { kind: 'ipv4', normalized: host };
}

function assessUncached(
  raw: string,
  defanged: boolean,
  where: HostWhere,
  fileContext: boolean,
  spacedDefang: boolean,
  mobileContext: boolean,
): HostAssessment {
  const host = defanged ? refangHost(raw) : raw;
  // a plain host was already tried as a dotted quad by assessHost, before the cache; only a refanged one is new text
  if (defanged) {
    const ip = dottedQuadValue(host);
    if (ip !== NOT_DOTTED_QUAD) return ipv4Assessment(host, ip);
  }
  // The labels are read by their dots' positions: splitting every distinct host into an array of labels was half
  // of this function's time, and only the rare paths below need the whole list.
  const lastDot = host.lastIndexOf('.');
  if (lastDot < 0) return IGNORE;
  const tld = host.slice(lastDot + 1).toLowerCase();
  if (!ALPHA_TLD_RE.test(tld)) return IGNORE;
  const tldKnown = isKnownTld(tld);
  const lower = host.toLowerCase();

  if (where === 'text') {
    // product names written like file names (node.js, asp.net) before the file-extension rule
    if (!defanged && isTechName(lower)) {
      return { kind: 'domain', normalized: lower, drop: { reason: 'product name, not an indicator', category: 'ambiguous' } };
    }
    // file names that only look like domains
    if (FILE_EXTS.has(tld) && !tldKnown) {
      return { kind: PROCESS_EXTS.has(tld) ? 'process' : 'filename', normalized: lower };
    }
    if ((isAmbiguousExt(tld, fileContext) || (FILE_EXTS.has(tld) && tldKnown)) && (!defanged || fileContext)) {
      return {
        kind: 'filename',
        normalized: lower,
        domainDrop: { reason: 'looks like a file name', category: 'ambiguous' },
      };
    }
    // reverse-DNS app ids: com.example.app, org.telegram.messenger (three labels or more: two dots)
    const firstDot = host.indexOf('.');
    if (!defanged && firstDot !== lastDot) {
      const first = host.slice(0, firstDot).toLowerCase();
      if ((MOBILE_STRONG_PREFIXES.has(first) && !MOBILE_NOT_LAST.has(tld)) || (mobileContext && REVERSE_DNS_PREFIXES.has(first))) {
        return {
          kind: 'mobile-id',
          normalized: host,
          domainDrop: { reason: 'looks like a mobile app id (reverse-DNS package name)', category: 'ambiguous' },
        };
      }
    }
    if (!defanged || spacedDefang) {
      const prose = proseHostVerdict(host, lower, spacedDefang);
      if (prose) return { kind: 'domain', normalized: lower, drop: prose };
    }
  }

  const ascii = normalizeHost(lower);
  if (!ascii) return { kind: 'domain', normalized: lower, drop: { reason: 'invalid hostname', category: 'invalid' } };
  const syntax = checkHostnameSyntax(ascii);
  if (syntax) return { kind: 'domain', normalized: ascii, drop: { reason: syntax, category: 'invalid' } };
  const asciiTld = ascii.slice(ascii.lastIndexOf('.') + 1);

  const reserved = reservedDomainVerdict(ascii, asciiTld);
  if (reserved) return { kind: 'domain', normalized: ascii, drop: reserved };

  if (asciiTld === 'onion') {
    const sld = ascii.slice(ascii.lastIndexOf('.', ascii.length - 7) + 1, -6);
    return isOnionLabel(sld)
      ? { kind: 'onion', normalized: `${sld}.onion` }
      : { kind: 'onion', normalized: ascii, drop: { reason: 'invalid onion address', category: 'invalid' } };
  }
  if (!tldKnown) {
    // only report plausible attempts, not abbreviations such as "e.g" or "U.S"
    if (host.split('.').some((l) => l.length >= 2)) {
      return { kind: 'domain', normalized: ascii, drop: { reason: 'invalid top-level domain', category: 'invalid' } };
    }
    return IGNORE;
  }
  const parsed = parse(ascii, { extractHostname: false, detectIp: false });
  if (!parsed.domain) {
    return { kind: 'domain', normalized: ascii, drop: { reason: 'public suffix, not a registrable domain', category: 'invalid' } };
  }
  const benign = benignDomainVerdict(parsed.domain, ascii);
  if (benign) return { kind: 'domain', normalized: ascii, drop: benign };
  return { kind: 'domain', normalized: ascii };
}

/** Registrable domain (eTLD+1) of a normalized host, or null. */
export function registrableDomain(ascii: string): string | null {
  return parse(ascii, { extractHostname: false, detectIp: false }).domain;
}
