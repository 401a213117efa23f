/** Pure functions of the exports: list lines, CSV rows, defanging. No I/O here. */

/** The last dot of a host or address bracketed: `evil-example[.]net`, `203.0.113[.]7`. */
function defangHost(host: string): string {
  const i = host.lastIndexOf('.');
  return i < 0 ? host : `${host.slice(0, i)}[.]${host.slice(i + 1)}`;
}

/**
 * The defanged form people paste into tickets and mail, the style Rampart reads back
 * (`hxxps://evil[.]example/x`, `203.0.113[.]7`, `user@evil[.]example`, `2001:db8::1` → `2001[:]db8::1`);
 * hashes and other types unchanged.
 */
export function defang(type: string, value: string): string {
  switch (type) {
    case 'ipv4':
    case 'domain':
      return defangHost(value);
    case 'ipv6':
      return value.replace(':', '[:]');
    case 'email': {
      const at = value.lastIndexOf('@');
      return at < 0 ? value : `${value.slice(0, at + 1)}${defangHost(value.slice(at + 1))}`;
    }
    case 'url': {
      // Only the authority is defanged: the path stays as the source wrote it.
      const m = /^(https?|ftp)(:\/\/)([^/?#]*)(.*)$/is.exec(value);
      if (!m) return value;
      return `${m[1]!.replace(/t/i, (c) => (c === 'T' ? 'X' : 'x')).replace(/t/i, (c) => (c === 'T' ? 'X' : 'x'))}${m[2]}${defangHost(m[3]!)}${m[4]}`;
    }
    default:
      return value;
  }
}

/**
 * One line of a block list, or null when the value does not belong in one: for IP lists a
 * plain address (a /32 or /128 suffix dropped; wider networks left out, they are not addresses),
 * for the rest the normalized value as is (domains are hosts already). Values with a line break
 * never reach a line-based list.
 */
export function listLine(type: string, value: string, defanged: boolean): string | null {
  if (/[\r\n]/.test(value)) return null;
  let v = value;
  if (type === 'ipv4' || type === 'ipv6') {
    const slash = v.indexOf('/');
    if (slash >= 0) {
      const prefix = v.slice(slash + 1);
      if (prefix !== (type === 'ipv4' ? '32' : '128')) return null;
      v = v.slice(0, slash);
    }
  }
  return defanged ? defang(type, v) : v;
}

export const CSV_COLUMNS = ['type', 'value', 'confidence', 'valid_from', 'valid_until', 'first_added', 'modified', 'sources', 'stix_id'] as const;
