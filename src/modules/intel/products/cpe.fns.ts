/**
 * CPE names (NIST IR 7695): the 2.3 formatted string and the 2.2 URI binding, plus the NVD and
 * CVE JSON 5 structures that carry them. Pure, no I/O.
 */

export type CpePart = 'a' | 'o' | 'h' | '*';

export interface CpeName {
  part: CpePart;
  /** Lower case, CPE form (`paloaltonetworks`, `exchange_server`); '' when ANY. */
  vendor: string;
  product: string;
  /** '' when ANY (`*`) or NA (`-`). */
  version: string;
  update: string;
}

/** `*` (ANY) and `-` (NA) both mean "no specific value" for what this module reports. */
function logical(v: string | undefined): string {
  return v === undefined || v === '*' || v === '-' || v === '' ? '' : v;
}

/** Splits a 2.3 formatted string on unescaped colons, removing the escapes (`\:` → `:`, `\.` → `.`). */
function splitFormatted(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i += 1) {
    const ch = s[i] as string;
    if (ch === '\\' && i + 1 < s.length) {
      cur += s[i + 1];
      i += 1;
    } else if (ch === ':') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function decodeUri(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

/**
 * Parses `cpe:2.3:part:vendor:product:version:update:…` (escaped with `\`) or `cpe:/part:vendor:product:version:update:…`
 * (percent-encoded; the packed `~` edition is ignored). Missing trailing components are ANY.
 * Returns null for anything else, or when vendor and product are both ANY.
 */
export function parseCpe(raw: string): CpeName | null {
  const s = raw.trim();
  let parts: string[];
  if (/^cpe:2\.3:/i.test(s)) parts = splitFormatted(s).slice(2);
  else if (/^cpe:\/[aoh]?/i.test(s)) parts = s.slice(5).split(':').map(decodeUri);
  else return null;
  const part = (parts[0] ?? '*').toLowerCase();
  if (!['a', 'o', 'h', '*', ''].includes(part)) return null;
  const vendor = logical(parts[1]).toLowerCase();
  const product = logical(parts[2]).toLowerCase();
  if (vendor === '' && product === '') return null;
  return { part: part === '' ? '*' : (part as CpePart), vendor, product, version: logical(parts[3]), update: logical(parts[4]) };
}

/** A version string for a CPE's own version/update ("7.0.12", "21.2 r1"), '' when unspecified. */
export function cpeVersion(c: CpeName): string {
  if (c.version === '') return '';
  return c.update === '' ? c.version : `${c.version} ${c.update}`;
}

export interface VersionBounds {
  startIncluding?: string;
  startExcluding?: string;
  endIncluding?: string;
  endExcluding?: string;
}

/**
 * A version range as one string: `>=7.0.0 <7.0.13`, `<2.3.1`, `<=1.4`, `>1.0`. Empty when unbounded.
 * This is the notation of every `versions` entry that is not a single version.
 */
export function rangeString(b: VersionBounds): string {
  const parts: string[] = [];
  if (b.startIncluding) parts.push(`>=${b.startIncluding}`);
  else if (b.startExcluding) parts.push(`>${b.startExcluding}`);
  if (b.endIncluding) parts.push(`<=${b.endIncluding}`);
  else if (b.endExcluding) parts.push(`<${b.endExcluding}`);
  return parts.join(' ');
}

export interface CpeFinding {
  vendor: string;
  product: string;
  /** One version or one range, '' for "all versions". */
  version: string;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A CPE string with optional NVD range bounds → finding; null when not a CPE. */
export function findingFromCpe(cpe: string, bounds: VersionBounds = {}): CpeFinding | null {
  const c = parseCpe(cpe);
  if (!c || c.product === '') return null;
  const range = rangeString(bounds);
  return { vendor: c.vendor, product: c.product, version: range !== '' ? range : cpeVersion(c) };
}

/**
 * Vulnerable CPE matches anywhere in NVD `configurations`: API 2.0 (`[{nodes: [{cpeMatch: [{criteria,
 * vulnerable, versionStartIncluding, …}]}]}]`) and the 1.1 feeds (`{nodes: [{children, cpe_match:
 * [{cpe23Uri, vulnerable, …}]}]}`). Matches with `vulnerable: false` (the platform a product runs on)
 * are skipped.
 */
export function findingsFromConfigurations(configurations: unknown): CpeFinding[] {
  const out: CpeFinding[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 12) return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    if (!isRecord(v)) return;
    const cpe = str(v.criteria) ?? str(v.cpe23Uri);
    if (cpe && v.vulnerable !== false) {
      const f = findingFromCpe(cpe, {
        startIncluding: str(v.versionStartIncluding),
        startExcluding: str(v.versionStartExcluding),
        endIncluding: str(v.versionEndIncluding),
        endExcluding: str(v.versionEndExcluding),
      });
      if (f) out.push(f);
      return;
    }
    for (const key of ['configurations', 'nodes', 'children', 'cpeMatch', 'cpe_match']) if (key in v) walk(v[key], depth + 1);
  };
  walk(configurations, 0);
  return out;
}

const UNSPECIFIED = new Set(['n/a', 'unspecified', 'unknown', '*', '-', '']);

/** Vendor/product names as written in CVE records → CPE-like form (`Palo Alto Networks` → `palo_alto_networks`). */
export function cpeCase(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\s+/g, '_')
    .replace(/[^\p{L}\p{N}_.\-&+/]/gu, '');
}

/**
 * CVE JSON 5 `containers.cna.affected` (or the array itself): `{vendor, product, versions: [{version,
 * status, lessThan, lessThanOrEqual}], cpes}`. Only `status: affected` versions count; a range from
 * 0 (or `*`) is just an upper bound. Vendor/product come back in {@link cpeCase}.
 */
export function findingsFromCve5Affected(affected: unknown): CpeFinding[] {
  let list: unknown = affected;
  if (isRecord(list) && isRecord(list.containers) && isRecord(list.containers.cna)) list = list.containers.cna.affected;
  if (!Array.isArray(list)) return [];
  const out: CpeFinding[] = [];
  for (const a of list) {
    if (!isRecord(a)) continue;
    const vendor = str(a.vendor);
    const product = str(a.product);
    if (Array.isArray(a.cpes)) for (const c of a.cpes) if (typeof c === 'string') {
      const f = findingFromCpe(c);
      if (f) out.push(f);
    }
    if (!vendor || !product || UNSPECIFIED.has(vendor.toLowerCase()) || UNSPECIFIED.has(product.toLowerCase())) continue;
    const base = { vendor: cpeCase(vendor), product: cpeCase(product) };
    const versions = Array.isArray(a.versions) ? a.versions.filter(isRecord) : [];
    const affectedVersions = versions.filter((v) => (str(v.status) ?? 'affected') === 'affected');
    if (affectedVersions.length === 0 && versions.length === 0 && str(a.defaultStatus) === 'affected') out.push({ ...base, version: '' });
    for (const v of affectedVersions) {
      const from = str(v.version);
      const start = from && !['0', '*'].includes(from) && !UNSPECIFIED.has(from.toLowerCase()) ? from : undefined;
      const lt = str(v.lessThan);
      const lte = str(v.lessThanOrEqual);
      if (lt && lt !== '*') out.push({ ...base, version: rangeString({ startIncluding: start, endExcluding: lt }) });
      else if (lte && lte !== '*') out.push({ ...base, version: rangeString({ startIncluding: start, endIncluding: lte }) });
      else if (lt === '*' || lte === '*') out.push({ ...base, version: start ? `>=${start}` : '' });
      else if (start) out.push({ ...base, version: start });
    }
  }
  return out;
}
