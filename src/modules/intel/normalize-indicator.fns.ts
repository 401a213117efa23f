/**
 * The one indicator normaliser (issue 42 item 5): the form every indicator value is stored, joined
 * and looked up under — intel's indicators (extracted from text or asserted by a connector), hunt's
 * sightings, the tools' lookups and intel-out's feeds all call it, so a value written one way
 * (`evil[.]com.`, `EVIL.com`, `2001:DB8:0::1`, `HKLM\…`) meets the same value written another.
 * It agrees with what the extractor stores for the same text (the primitives below are the
 * extractor's). test/platform/structure.test.ts allows no other function that normalises indicator values.
 * Pure.
 */
import type { IndicatorType } from './indicator-vocabulary.js';
import { normalizeFingerprint, normalizeHost, normalizeRegistryKey, normalizeUrl, normalizeWindowsPath } from './extract/normalize.fns.js';
import { refang } from './extract/refang.fns.js';
import { formatIpv6, parseIpv6Parts } from './extract/validate.fns.js';

const REGISTRY_RE = /^(HKEY_[A-Z_]+|HK(?:LM|CU|CR|U|CC)):?(\\.*)$/i;
const URL_RE = /^([a-z][a-z0-9+.-]*):\/\/(?:([^@/?#\s]*)@)?(\[[^\]]*\]|[^:/?#\s]*)(?::(\d+))?(.*)$/is;

/** `value` of an indicator of `type` in its canonical form; the trimmed value where the type has no finer rule. */
export function normalizeIndicator(type: IndicatorType, value: string): string {
  const v = value.trim();
  switch (type) {
    case 'ipv4':
      return refang(v).replace(/\.$/, '');
    case 'ipv6':
      return ipv6(refang(v)) ?? refang(v).toLowerCase();
    case 'domain':
    case 'onion':
      return host(refang(v));
    case 'email': {
      const r = refang(v);
      const at = r.lastIndexOf('@');
      return at > 0 ? `${r.slice(0, at).toLowerCase()}@${host(r.slice(at + 1))}` : r.toLowerCase();
    }
    case 'url':
      return url(refang(v));
    case 'md5':
    case 'sha1':
    case 'sha256':
    case 'sha512':
      return v.toLowerCase();
    case 'cert':
      return /^[0-9a-f]{2}(?::?[0-9a-f]{2})+$/i.test(v) ? normalizeFingerprint(v) : v;
    case 'registry-key': {
      const m = REGISTRY_RE.exec(v);
      return m ? normalizeRegistryKey(m[1]!, m[2]!) : v;
    }
    case 'filename':
    case 'process':
      // Windows names and paths are case-insensitive; the extractor stores them lowercased.
      return normalizeWindowsPath(v);
    case 'asn': {
      const m = /^(?:as)?\s*(\d{1,10})$/i.exec(v);
      return m ? `AS${Number(m[1])}` : v;
    }
    case 'eth':
      return v.toLowerCase();
    case 'btc':
      // Bech32 addresses are case-insensitive (lowercase canonical); Base58 ones are case-sensitive.
      return /^(bc1|tb1)/i.test(v) ? v.toLowerCase() : v;
    default:
      return v;
  }
}

/** A hostname: refanged already; lowercase, punycode, no trailing dot (the value itself when not convertible). */
function host(h: string): string {
  return normalizeHost(h) || h.toLowerCase().replace(/\.$/, '');
}

/** RFC 5952 form of an IPv6 address written with or without brackets, any compression or case; null if not one. */
function ipv6(s: string): string | null {
  const parts = parseIpv6Parts(s.replace(/^\[(.*)\]$/, '$1').toLowerCase());
  return parts ? formatIpv6(parts) : null;
}

/** scheme://[userinfo@]host[:port]path as the extractor stores URLs: scheme and host canonical, default port dropped, path kept. */
function url(s: string): string {
  const m = URL_RE.exec(s);
  if (!m) return s;
  const rawHost = m[3]!;
  const bracketed = /^\[(.*)\]$/.exec(rawHost);
  const h = bracketed ? `[${ipv6(bracketed[1]!) ?? bracketed[1]!.toLowerCase()}]` : host(rawHost);
  return normalizeUrl({ scheme: m[1]!.toLowerCase(), userinfo: m[2] ?? '', host: h, port: m[4] ?? '', path: m[5] ?? '' });
}
