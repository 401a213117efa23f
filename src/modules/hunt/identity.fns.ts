import { parseCpe } from '../intel/index.js';
import { memoized } from '../../platform/memo.js';
/**
 * Package identity, the way OSV-Scanner, Grype and Dependency-Track match: a purl's type +
 * namespace + name (version, qualifiers and subpath ignored), or a CPE 2.3's vendor + product.
 * Exact after each ecosystem's name normalization: `undici-types` is not `undici`, and
 * `@fastify/static` is not `fastify`. Pure, no I/O.
 */

// Remembered: an assessment page reads each installed purl's identity several times (its read, its grouping, the match's identity).
const purlKeyOf = memoized((purl: string): string | null => {
  const m = /^pkg:([a-zA-Z][a-zA-Z0-9.+-]*)\/(.+)$/.exec(purl.trim());
  if (!m) return null;
  const type = m[1]!.toLowerCase();
  let rest = m[2]!.split('#')[0]!.split('?')[0]!;
  // The version follows the last '@' of the last segment (an npm scope's '@' is in the namespace).
  const slash = rest.lastIndexOf('/');
  const at = rest.indexOf('@', slash + 1);
  if (at > 0) rest = rest.slice(0, at);
  const segments = rest.split('/').filter(Boolean).map(safeDecode);
  if (segments.length === 0) return null;
  return packageKey(type, segments.slice(0, -1).join('/'), segments.at(-1)!);
});

/** `pkg:npm/%40fastify/static@5.1.0?x=y#sub` → `npm/@fastify/static`; null when not a purl. */
export function purlKey(purl: string | null | undefined): string | null {
  return purl ? purlKeyOf(purl) : null;
}

/**
 * The coarse name key of a package key (`npm/@fastify/static` → `static`, `pypi/foo-bar` →
 * `foobar`): the rule of SQL's `hunt_purl_name(purl)` (migration 0111) applied to the key's
 * name, so an index lookup finds every purl of the package (and maybe others, which purlKey
 * then filters out).
 */
export function purlNameOfKey(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1).replace(/%[0-9a-f]{2}/gi, '').replace(/[^a-z0-9]/gi, '').toLowerCase();
}

/** The version a purl carries, decoded (`pkg:npm/undici@7.30.2` → `7.30.2`). */
export function purlVersion(purl: string | null | undefined): string | null {
  if (!purl) return null;
  const path = purl.split('#')[0]!.split('?')[0]!;
  const at = path.indexOf('@', path.lastIndexOf('/') + 1);
  return at > 0 ? safeDecode(path.slice(at + 1)) : null;
}

function safeDecode(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The canonical key of (purl type, namespace, name), with each type's name rules from the purl spec. */
export function packageKey(type: string, namespace: string, name: string): string {
  const t = type.toLowerCase();
  let ns = namespace;
  let n = name;
  if (t === 'pypi') n = n.toLowerCase().replace(/[-_.]+/g, '-');
  else if (t === 'npm' || t === 'golang' || t === 'deb' || t === 'rpm' || t === 'apk' || t === 'gem' || t === 'cargo' || t === 'nuget' || t === 'composer' || t === 'github') {
    ns = ns.toLowerCase();
    n = n.toLowerCase();
  }
  return ns ? `${t}/${ns}/${n}` : `${t}/${n}`;
}

// OSV ecosystem → purl type (https://ossf.github.io/osv-schema/#affectedpackage-field).
const PURL_TYPE: Record<string, string> = {
  npm: 'npm', pypi: 'pypi', maven: 'maven', go: 'golang', 'crates.io': 'cargo', rubygems: 'gem', nuget: 'nuget', packagist: 'composer',
  hex: 'hex', pub: 'pub', swifturl: 'swift', debian: 'deb', ubuntu: 'deb', alpine: 'apk', 'red hat': 'rpm', 'rocky linux': 'rpm', almalinux: 'rpm', suse: 'rpm', opensuse: 'rpm',
};

/** The purl key of an OSV (ecosystem, name): Maven `group:artifact`, Go module paths, npm scopes, distro packages. */
export function osvPackageKey(ecosystem: string, name: string): string | null {
  const eco = ecosystem.split(':')[0]!.trim().toLowerCase();
  const type = PURL_TYPE[eco];
  if (!type || !name) return null;
  if (type === 'maven') {
    const [group, artifact] = name.split(':');
    return artifact ? packageKey('maven', group!, artifact) : null;
  }
  if (type === 'deb') return packageKey('deb', eco, name);
  if (type === 'apk') return packageKey('apk', 'alpine', name);
  // npm scopes, Go module paths and Composer vendors are the purl's namespace.
  const slash = name.lastIndexOf('/');
  return slash > 0 ? packageKey(type, name.slice(0, slash), name.slice(slash + 1)) : packageKey(type, '', name);
}

/** `cpe:2.3:a:openbsd:openssh:9.3:p1:…` (or the 2.2 URI form) → `openbsd:openssh` (intel's CPE parser). */
export function cpeKey(cpe: string | null | undefined): string | null {
  const c = cpe ? parseCpe(cpe) : null;
  return c && c.vendor && c.product ? `${c.vendor}:${c.product}` : null;
}
