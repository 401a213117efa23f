import ipaddr from 'ipaddr.js';
import { extractIocs, normalizeIndicator, refang } from '../intel/index.js';

/** Pure functions of block lists: what a value may be, the allow list, the external-list lines. No I/O here. */

/**
 * The indicator types a block list can hold: what firewalls and proxies enforce from an external
 * list (PAN-OS EDL and FortiGate threat feeds: IP addresses and networks, domains, URLs; file
 * hashes for FortiGate's malware hash feeds). The names are intel's (indicator-vocabulary.ts).
 */
export const BLOCKABLE_TYPES = ['ipv4', 'ipv6', 'domain', 'url', 'md5', 'sha1', 'sha256'] as const;
export type BlockableType = (typeof BLOCKABLE_TYPES)[number];

/** A block list's name is the path of its external list (`/blocklists/{name}.txt`): lower case, digits, `_`, `-` (no dot: the `.txt` follows). */
export const LIST_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** The groups of the `.txt`'s `type` filter: one firewall object per kind (an EDL holds one type of entry). */
export const TXT_GROUPS = { ip: ['ipv4', 'ipv6'], domain: ['domain'], url: ['url'], hash: ['md5', 'sha1', 'sha256'] } as const satisfies Record<string, readonly BlockableType[]>;
export type TxtGroup = keyof typeof TXT_GROUPS;

/**
 * Addresses never blocked, whatever the organization's allow list says: blocking them cuts the
 * organization off from itself (RFC 1918 and RFC 4193 private networks, loopback, link-local,
 * carrier-grade NAT, this-network, multicast and broadcast). A firewall block on 10.0.0.0/8 is
 * an outage, never a response.
 */
export const BUILTIN_ALLOWED_RANGES: ReadonlyArray<{ cidr: string; note: string }> = [
  { cidr: '0.0.0.0/8', note: 'this network (RFC 1122)' },
  { cidr: '10.0.0.0/8', note: 'private network (RFC 1918)' },
  { cidr: '100.64.0.0/10', note: 'carrier-grade NAT (RFC 6598)' },
  { cidr: '127.0.0.0/8', note: 'loopback (RFC 1122)' },
  { cidr: '169.254.0.0/16', note: 'link-local (RFC 3927)' },
  { cidr: '172.16.0.0/12', note: 'private network (RFC 1918)' },
  { cidr: '192.168.0.0/16', note: 'private network (RFC 1918)' },
  { cidr: '224.0.0.0/4', note: 'multicast (RFC 5771)' },
  { cidr: '255.255.255.255/32', note: 'broadcast (RFC 919)' },
  { cidr: '::/128', note: 'unspecified (RFC 4291)' },
  { cidr: '::1/128', note: 'loopback (RFC 4291)' },
  { cidr: 'fc00::/7', note: 'unique local (RFC 4193)' },
  { cidr: 'fe80::/10', note: 'link-local (RFC 4291)' },
  { cidr: 'ff00::/8', note: 'multicast (RFC 4291)' },
];

/** Host names never blocked: they name the machine itself. */
export const BUILTIN_ALLOWED_DOMAINS: ReadonlyArray<{ domain: string; note: string }> = [
  { domain: 'localhost', note: 'loopback (RFC 6761)' },
];

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** A CIDR or a single address as a range (`203.0.113.7` → /32), IPv4-mapped IPv6 as IPv4; null when it is not one. */
export function parseRange(value: string): Range | null {
  try {
    const [addr, bits] = value.includes('/') ? ipaddr.parseCIDR(value) : ((a) => [a, a.kind() === 'ipv4' ? 32 : 128] as Range)(ipaddr.parse(value));
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) return [(addr as ipaddr.IPv6).toIPv4Address(), bits - 96];
    return [addr, bits];
  } catch {
    return null;
  }
}

/** Whether two ranges share an address: one contains the other's network address. */
export function rangesOverlap(a: Range, b: Range): boolean {
  if (a[0].kind() !== b[0].kind()) return false;
  const wider = a[1] <= b[1] ? a : b;
  const narrower = wider === a ? b : a;
  return (narrower[0] as ipaddr.IPv4).match(wider as [ipaddr.IPv4, number]);
}

/** The range in its canonical text (`10.1.2.0/24`, `2001:db8::/32`), the network address masked. */
export function canonicalRange(value: string): string | null {
  const r = parseRange(value);
  if (!r) return null;
  const network = r[0].kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(`${r[0].toString()}/${r[1]}`) : ipaddr.IPv6.networkAddressFromCIDR(`${r[0].toString()}/${r[1]}`);
  return `${network.toString()}/${r[1]}`;
}

/** A domain of the allow list: lower case, no trailing dot, refanged. Null when it is not a host name. */
export function canonicalDomain(value: string): string | null {
  const d = refang(value.trim()).toLowerCase().replace(/\.$/, '');
  return /^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)(\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)*$/.test(d) ? d : null;
}

/** Whether two host names are the same or one is a subdomain of the other (a domain entry blocks its subdomains on FortiGate and in most DNS filters). */
export function domainsOverlap(a: string, b: string): boolean {
  return a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`);
}

export interface AllowRule {
  kind: 'domain' | 'cidr';
  value: string;
  note: string;
  builtin: boolean;
}

export const BUILTIN_ALLOW_RULES: readonly AllowRule[] = [
  ...BUILTIN_ALLOWED_RANGES.map((r) => ({ kind: 'cidr' as const, value: r.cidr, note: r.note, builtin: true })),
  ...BUILTIN_ALLOWED_DOMAINS.map((d) => ({ kind: 'domain' as const, value: d.domain, note: d.note, builtin: true })),
];

/** The host a URL names (lower case), or null. */
function urlHost(value: string): string | null {
  try {
    return new URL(value).hostname.replace(/^\[|\]$/g, '').toLowerCase() || null;
  } catch {
    return null;
  }
}

/**
 * The allow-list rule a value would break, or null when it may be blocked: an address or
 * network that shares an address with an allowed range, a domain (or a URL's host) equal to,
 * under or above an allowed domain. Hashes are never refused.
 */
export function allowRuleBroken(type: string, value: string, rules: readonly AllowRule[]): AllowRule | null {
  let host: string | null = null;
  let range: Range | null = null;
  if (type === 'ipv4' || type === 'ipv6') range = parseRange(value);
  else if (type === 'domain') host = value;
  else if (type === 'url') {
    host = urlHost(value);
    range = host ? parseRange(host) : null;
    if (range) host = null;
  } else return null;
  for (const rule of rules) {
    if (range && rule.kind === 'cidr') {
      const allowed = parseRange(rule.value);
      if (allowed && rangesOverlap(range, allowed)) return rule;
    }
    if (host && rule.kind === 'domain' && domainsOverlap(host, rule.value)) return rule;
  }
  return null;
}

export type ValueCheck = { ok: true; value: string } | { ok: false; message: string };

/**
 * Whether a value given for a type is one, and its stored form. Addresses and networks are
 * canonicalized here (a network's host bits masked, a /32 written as the address): intel's
 * extractor and normal form do not read CIDR. Everything else must read, as a whole, as exactly
 * that type to intel's extractor, and is stored in intel's one normal form (normalizeIndicator),
 * so an entry and the indicator it came from are the same value.
 */
export function parseBlockValue(type: BlockableType, raw: string): ValueCheck {
  const input = refang(raw.trim());
  if (input === '' || /[\s]/.test(input)) return { ok: false, message: `Not a ${type} value: ${JSON.stringify(raw.slice(0, 200))}` };
  if (type === 'ipv4' || type === 'ipv6') {
    const r = parseRange(input);
    if (!r || r[0].kind() !== type) return { ok: false, message: `Not an ${type === 'ipv4' ? 'IPv4' : 'IPv6'} address or network: ${JSON.stringify(raw.slice(0, 200))}` };
    const full = r[1] === (type === 'ipv4' ? 32 : 128);
    return { ok: true, value: full ? r[0].toString() : canonicalRange(`${r[0].toString()}/${r[1]}`)! };
  }
  const { iocs, dropped } = extractIocs(input);
  const whole = [...iocs.map((i) => ({ kind: i.kind as string, value: i.normalizedValue, span: i.spans[0] })), ...dropped.map((d) => ({ kind: d.kind as string, value: d.normalizedValue, span: d.span }))].find(
    (i) => i.kind === type && i.value && i.span && i.span.start <= 0 && i.span.end >= input.length,
  );
  if (!whole?.value) return { ok: false, message: `Not a ${type} value: ${JSON.stringify(raw.slice(0, 200))}` };
  return { ok: true, value: normalizeIndicator(type, whole.value) };
}

/** The type a bare value is, for a tool call that gave none: an address or network, else what intel's extractor reads it as. */
export function guessBlockType(raw: string): BlockableType | null {
  const input = refang(raw.trim());
  const r = parseRange(input);
  if (r) return r[0].kind() as 'ipv4' | 'ipv6';
  const { iocs } = extractIocs(input);
  const whole = iocs.find((i) => i.spans[0] && i.spans[0].start <= 0 && i.spans[0].end >= input.length);
  return whole && (BLOCKABLE_TYPES as readonly string[]).includes(whole.kind) ? (whole.kind as BlockableType) : null;
}

/**
 * One line of the external list: the value as firewalls read it. Addresses and networks as
 * they are (PAN-OS EDL and FortiGate read both), domains as hosts, URLs without their scheme
 * (PAN-OS URL lists and FortiGate URL feeds match scheme-less entries), hashes as they are.
 * Values with a line break or a space (a comment separator in an EDL) never reach a line.
 */
export function externalListLine(type: string, value: string): string | null {
  if (/[\s]/.test(value)) return null;
  if (type === 'url') return value.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  return value;
}

/** When an entry expires: the instant given, else now plus the TTL given or the list's default, else never (null). */
export function expiryOf(now: Date, given: { expiresAt?: string | null | undefined; ttlSeconds?: number | undefined }, defaultTtlSeconds: number | null): Date | null {
  if (given.expiresAt !== undefined) return given.expiresAt === null ? null : new Date(given.expiresAt);
  const ttl = given.ttlSeconds ?? defaultTtlSeconds;
  return ttl ? new Date(now.getTime() + ttl * 1000) : null;
}
