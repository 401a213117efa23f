import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses an outbound call may connect to. Everything that is not plain public
 * unicast is refused: an attacker who controls a feed URL or webhook must not be able to make
 * the service talk to itself, the LAN or the cloud provider's metadata endpoint (SSRF).
 *
 * The answer is a short human reason ("loopback", "private"…) or null for a public address.
 * Anything that does not parse is refused too: fail closed.
 */

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

// Instance metadata services hand out cloud credentials; they get their own reason so the
// message makes the risk obvious. Azure's wireserver is a public address, hence explicit.
const METADATA_V4 = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '168.63.129.16', '192.0.0.192']);
const METADATA_V6 = [ipaddr.IPv6.parse('fd00:ec2::254')];

const V4_REASONS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  // RFC 5737 documentation ranges, 240/4, benchmarking, IETF protocol assignments, AS112, AMT.
  reserved: 'reserved',
  benchmarking: 'reserved',
  as112: 'reserved',
  amt: 'reserved',
};

const V6_REASONS: Record<string, string> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  linkLocal: 'link-local',
  multicast: 'multicast',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'private',
  teredo: 'Teredo tunnel',
};

// 64:ff9b:1::/48 is the *local-use* NAT64 prefix (RFC 8215): a private translator by definition.
const LOCAL_NAT64: [IPv6, number] = ipaddr.IPv6.parseCIDR('64:ff9b:1::/48');

/**
 * The policy when private networks are allowed (RAMPART_ALLOW_PRIVATE_NETWORKS=true, for a
 * local model server or an on-prem feed): everything goes except the instance metadata
 * services, directly or through an IPv6 form, since nothing Rampart calls lives there and they
 * hand out the host's cloud credentials.
 */
export function metadataOnly(ip: string): string | null {
  const reason = isForbiddenAddress(ip);
  return reason?.endsWith('cloud metadata') ? reason : null;
}

/**
 * Why an outbound URL is refused before any lookup: its host is a literal address (in any
 * spelling the URL parser normalizes: decimal, octal, hex, IPv4-mapped…) or `localhost` that
 * the policy refuses. Null when nothing is known without DNS. The fetch-time check still runs
 * on every request; this one only makes a configuration mistake visible when it is made.
 */
export function literalAddressRefusal(value: string, allowPrivateNetworks: boolean): string | null {
  let host: string;
  try {
    host = new URL(value).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return null;
  }
  if (/^localhost\.?$/i.test(host) || /\.localhost\.?$/i.test(host)) return allowPrivateNetworks ? null : 'loopback';
  if (!ipaddr.isValid(host)) return null;
  return allowPrivateNetworks ? metadataOnly(host) : isForbiddenAddress(host);
}

export function isForbiddenAddress(ip: string): string | null {
  let addr: IPv4 | IPv6;
  try {
    // Strip brackets so a URL hostname ("[::1]") can be passed as is.
    addr = ipaddr.parse(ip.replace(/^\[(.*)\]$/, '$1'));
  } catch {
    return 'not an IP address';
  }
  return addr.kind() === 'ipv4' ? v4Reason(addr as IPv4) : v6Reason(addr as IPv6);
}

function v4Reason(addr: IPv4): string | null {
  if (METADATA_V4.has(addr.toString())) return 'cloud metadata';
  const range = addr.range();
  if (range === 'unicast') return null;
  return V4_REASONS[range] ?? 'reserved';
}

function v6Reason(addr: IPv6): string | null {
  if (METADATA_V6.some((m) => m.toNormalizedString() === addr.toNormalizedString())) return 'cloud metadata';
  const range = addr.range();
  const p = addr.parts;
  // Addresses that carry an IPv4 address reach that IPv4 host; judge the embedded address.
  switch (range) {
    case 'ipv4Mapped':
      return embedded('IPv4-mapped IPv6', addr.toIPv4Address());
    case 'rfc6145': // ::ffff:0:a.b.c.d, IPv4-translated
      return embedded('IPv4-translated IPv6', v4FromWords(p[6], p[7]));
    case 'rfc6052':
      if (addr.match(LOCAL_NAT64)) return 'private';
      return embedded('NAT64', v4FromWords(p[6], p[7]));
    case '6to4':
      return embedded('6to4', v4FromWords(p[1], p[2]));
    case 'unicast':
      // ::a.b.c.d "IPv4-compatible" addresses are deprecated; some stacks still route them.
      if (p.slice(0, 6).every((w) => w === 0)) return 'reserved';
      return null;
    default:
      return V6_REASONS[range] ?? 'reserved';
  }
}

function embedded(label: string, v4: IPv4): string | null {
  const reason = v4Reason(v4);
  return reason === null ? null : `${label} to ${reason}`;
}

function v4FromWords(hi: number | undefined, lo: number | undefined): IPv4 {
  const h = hi ?? 0;
  const l = lo ?? 0;
  return new ipaddr.IPv4([h >> 8, h & 0xff, l >> 8, l & 0xff]);
}
