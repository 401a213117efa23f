/**
 * Inventory normalization: the product key a piece of software is matched on, and how CPE
 * and purl names give vendor/product. Pure, no I/O.
 */

export interface SoftwareInput {
  vendor?: string;
  product: string;
  version?: string | null;
  cpe?: string | null;
  purl?: string | null;
}

export const CRITICALITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Criticality = (typeof CRITICALITIES)[number];

export interface AssetInput {
  identifier: string;
  kind?: string;
  platform?: string | null;
  internetFacing?: boolean;
  criticality?: Criticality;
  software: SoftwareInput[];
}

/** Lower case, separators to single spaces: "Log4j-Core" → "log4j core". */
export function normalizeName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[®™©]/g, '')
    .replace(/[^a-z0-9+#]+/g, ' ')
    .trim();
}

/** The product name without its vendor's name (or the vendor's first word) in front ("Apache Log4j" by Apache → "log4j"). */
export function productKey(vendor: string | undefined, product: string): string {
  const p = normalizeName(product);
  const v = normalizeName(vendor ?? '');
  if (v && p.startsWith(`${v} `)) return p.slice(v.length + 1);
  // "Google Chrome" by "Google LLC", "Microsoft Exchange Server" by "Microsoft Corporation".
  const first = v.split(' ')[0];
  if (first && first.length >= 3 && p.startsWith(`${first} `)) return p.slice(first.length + 1);
  return p;
}

/** cpe:2.3:a:apache:log4j:2.14.1:*:… (or the 2.2 URI form cpe:/a:apache:log4j:2.14.1). */
export function parseCpeName(cpe: string): { vendor: string; product: string; version: string | null } | null {
  const m = /^cpe:2\.3:[aoh\*]:([^:]+):([^:]+):([^:]*)/i.exec(cpe) ?? /^cpe:\/[aoh]:([^:]+):([^:]+):?([^:]*)/i.exec(cpe);
  if (!m) return null;
  const unescape = (s: string) => s.replace(/\\(.)/g, '$1').replace(/_/g, ' ');
  const version = m[3] && m[3] !== '*' && m[3] !== '-' ? m[3].replace(/\\(.)/g, '$1') : null;
  return { vendor: unescape(m[1]!), product: unescape(m[2]!), version };
}

/** pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1 → namespace, name, version. */
export function parsePurl(purl: string): { vendor: string; product: string; version: string | null } | null {
  const m = /^pkg:([a-z0-9.+-]+)\/(?:(.+)\/)?([^/@?#]+)(?:@([^?#]+))?/i.exec(purl.trim());
  if (!m) return null;
  // A malformed percent-escape ("foo%") is kept as written rather than failing the read.
  const dec = (s: string | undefined) => {
    try {
      return s ? decodeURIComponent(s) : '';
    } catch {
      return s!;
    }
  };
  return { vendor: dec(m[2]), product: dec(m[3]), version: m[4] ? dec(m[4]) : null };
}

/** What a software entry is matched on: the CPE product when present, else the purl name, else its own name. */
export function softwareKey(s: SoftwareInput): string {
  const fromCpe = s.cpe ? parseCpeName(s.cpe) : null;
  if (fromCpe) return productKey(fromCpe.vendor, fromCpe.product);
  return productKey(s.vendor, s.product);
}

/**
 * Whether an advisory's product key names an inventory product key: equal, or one is the other
 * plus further words ("log4j" ~ "log4j core", "fortios" ~ "fortios ssl vpn"); the shorter must
 * be at least 4 characters so "go" never matches "go ethereum".
 */
export function keysMatch(advisory: string, inventory: string): boolean {
  if (!advisory || !inventory) return false;
  if (advisory === inventory) return true;
  const [short, long] = advisory.length < inventory.length ? [advisory, inventory] : [inventory, advisory];
  return short.length >= 4 && long.startsWith(`${short} `);
}

/** Debian/RPM package versions: the upstream part ("1:2.17.1-1ubuntu1" → "2.17.1"). */
export function upstreamVersion(version: string): string {
  const noEpoch = version.replace(/^\d+:/, '');
  const dash = noEpoch.lastIndexOf('-');
  return dash > 0 ? noEpoch.slice(0, dash) : noEpoch;
}
