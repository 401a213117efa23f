import { parseCpe, cpeVersion, type AffectedPackage, type IntelEntry, type VulnerabilityRecord } from '../../../intel/index.js';
import { normaliseText } from '../text.fns.js';

/**
 * CSAF 2.0 documents (https://docs.oasis-open.org/csaf/csaf/v2.0/os/csaf-v2.0-os.html) → intel
 * entries carrying the same structured vulnerability data as OSV records: one entry per
 * vulnerability of a document, its products by identity (the `product_identification_helper`
 * purl, else CPE) with the versions `product_status` gives as affected, fixed and not affected.
 * Pure, no I/O; the provider walk is csaf.connector.ts.
 */
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const CVE_RE = /^CVE-\d{4}-\d{4,}$/i;

/** Why a document is not a CSAF 2.0 document we can read (the fields the standard makes mandatory), or null. */
export function csafShapeError(doc: unknown): string | null {
  const d = obj(obj(doc)?.document);
  if (!d) return 'it has no `document` object';
  if (str(d.csaf_version) !== '2.0') return `its csaf_version is ${JSON.stringify(d.csaf_version ?? null)}, not "2.0"`;
  if (!str(d.category)) return 'it has no document.category';
  if (!str(d.title)) return 'it has no document.title';
  const tracking = obj(d.tracking);
  if (!tracking || !str(tracking.id)) return 'it has no document.tracking.id';
  if (!str(tracking.current_release_date)) return 'it has no document.tracking.current_release_date';
  if (obj(doc)!.vulnerabilities !== undefined && !Array.isArray(obj(doc)!.vulnerabilities)) return 'its vulnerabilities is not an array';
  return null;
}

/** A product of the tree with what identifies it and the version (or range) its branch names. */
export interface CsafProduct {
  id: string;
  name: string;
  purl: string | null;
  cpe: string | null;
  /** The product_version branch's name, or the version a purl/CPE carries. */
  version: string | null;
  /** A product_version_range branch's name (`vers:npm/>=1.0.0|<1.2.3`, or a free-text range). */
  range: string | null;
  /**
   * A relationship's product (`snakeyaml as a component of Stackable's HBase image`): the
   * platform product the statement is scoped to. Null for a product the tree names by itself.
   */
  platform?: CsafPlatform | null;
}

/** The product a component statement is scoped to (CSAF relationships: default_component_of, installed_on, …). */
export interface CsafPlatform {
  name: string;
  purl: string | null;
  cpe: string | null;
  relationship: string;
}

/**
 * Every product of a product_tree by id: branches (at any depth, the last product_version /
 * product_version_range on the way), full_product_names, and relationships — a relationship's
 * product (`telnet-server … as a component of RHEL 7`) is identified by its component.
 */
export function productsOf(tree: unknown): Map<string, CsafProduct> {
  const out = new Map<string, CsafProduct>();
  const add = (fpn: unknown, version: string | null, range: string | null) => {
    const p = obj(fpn);
    const id = p && str(p.product_id);
    if (!p || !id) return;
    const helper = obj(p.product_identification_helper);
    // CSAF 2.0 has `purl`; 2.1 drafts `purls` (an array): the first one identifies.
    const purl = str(helper?.purl) ?? (arr(helper?.purls).map(str).find(Boolean) ?? null);
    const cpe = str(helper?.cpe);
    const cpeVer = cpe ? parseCpe(cpe) : null;
    out.set(id, {
      id,
      name: str(p.name) ?? id,
      purl,
      cpe,
      // A helper's version is the package's own (Red Hat names branches by NEVRA: `telnet-1:0.17-65.el7_6.x86_64`).
      version: (purl ? purlVersionOf(purl) : null) ?? version ?? (cpeVer && cpeVersion(cpeVer) ? cpeVersion(cpeVer) : null),
      range,
    });
  };
  const walk = (branches: unknown, version: string | null, range: string | null, depth: number) => {
    if (depth > 30) return;
    for (const b of arr(branches)) {
      const o = obj(b);
      if (!o) continue;
      const cat = str(o.category);
      const v = cat === 'product_version' ? str(o.name) : version;
      const r = cat === 'product_version_range' ? str(o.name) : cat === 'product_version' ? null : range;
      if (o.product) add(o.product, v, r);
      walk(o.branches, v, r, depth + 1);
    }
  };
  const t = obj(tree);
  walk(t?.branches, null, null, 0);
  for (const f of arr(t?.full_product_names)) add(f, null, null);
  for (const rel of arr(t?.relationships)) {
    const r = obj(rel);
    const fpn = obj(r?.full_product_name);
    const id = fpn && str(fpn.product_id);
    const component = out.get(str(r?.product_reference) ?? '');
    const target = out.get(str(r?.relates_to_product_reference) ?? '');
    if (!id || out.has(id)) continue;
    add(fpn, null, null);
    if (component && !out.get(id)!.purl && !out.get(id)!.cpe) out.set(id, { ...component, id, name: out.get(id)!.name });
    // The statement about this product speaks of the component inside that platform only.
    const platform = target ?? { name: str(r?.relates_to_product_reference) ?? 'an unnamed product', purl: null, cpe: null };
    out.set(id, { ...out.get(id)!, platform: { name: platform.name, purl: platform.purl, cpe: platform.cpe, relationship: str(r?.category) ?? 'default_component_of' } });
  }
  return out;
}

function purlVersionOf(purl: string): string | null {
  const path = purl.split('#')[0]!.split('?')[0]!;
  const at = path.indexOf('@', path.lastIndexOf('/') + 1);
  if (at < 0) return null;
  try {
    return decodeURIComponent(path.slice(at + 1));
  } catch {
    return path.slice(at + 1);
  }
}

/** A purl without version, qualifiers or subpath: the package's identity. */
function purlIdentity(purl: string): string {
  const path = purl.split('#')[0]!.split('?')[0]!;
  const at = path.indexOf('@', path.lastIndexOf('/') + 1);
  return at > 0 ? path.slice(0, at) : path;
}

type Events = AffectedPackage['ranges'][number]['events'];

/**
 * A `vers` range (https://github.com/package-url/purl-spec/blob/master/VERSION-RANGE-SPEC.rst)
 * as OSV events: `vers:npm/>=1.0.0|<1.2.3` → introduced 1.0.0, fixed 1.2.3; `<=` is
 * last_affected; `=` or a bare version is an exact version; `*` is every version. Null when the
 * range is not vers or uses what OSV events cannot say (`!=`, `>`).
 */
export function versToEvents(range: string): { events: Events; versions: string[] } | null {
  const m = /^vers:[a-z0-9.+-]+\/(.+)$/i.exec(range.trim());
  if (!m) return null;
  const events: Events = [];
  const versions: string[] = [];
  const constraints = m[1]!.split('|').map((c) => c.trim()).filter(Boolean);
  if (constraints.length === 1 && constraints[0] === '*') return { events: [{ introduced: '0' }], versions };
  let open = false;
  for (const c of constraints) {
    const op = /^(>=|<=|!=|<|>|=)?(.+)$/.exec(c)!;
    const v = decodeVers(op[2]!.trim());
    switch (op[1] ?? '=') {
      case '>=':
        events.push({ introduced: v });
        open = true;
        break;
      case '<':
        if (!open) events.push({ introduced: '0' });
        events.push({ fixed: v });
        open = false;
        break;
      case '<=':
        if (!open) events.push({ introduced: '0' });
        events.push({ last_affected: v });
        open = false;
        break;
      case '=':
        versions.push(v);
        break;
      default:
        return null;
    }
  }
  return { events, versions };
}

function decodeVers(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

const AFFECTED = ['known_affected', 'first_affected', 'last_affected'] as const;
const FIXED = ['fixed', 'first_fixed'] as const;
const NOT_AFFECTED = ['known_not_affected'] as const;

// purl type → the ecosystem name OSV uses (schemeOf reads either).
const ECOSYSTEM: Record<string, string> = { npm: 'npm', pypi: 'PyPI', maven: 'Maven', golang: 'Go', cargo: 'crates.io', gem: 'RubyGems', nuget: 'NuGet', composer: 'Packagist', deb: 'Debian', rpm: 'Red Hat', apk: 'Alpine', hex: 'Hex', pub: 'Pub' };

/**
 * The affected packages of one vulnerability: the products its product_status names, grouped by
 * identity (purl without version, else CPE vendor:product). Affected versions become `versions`
 * (exact) or `ranges` (vers); fixed and not-affected versions are kept beside them so that hunt
 * says `not_affected` only where the document does, and `unknown` for a version it does not name.
 */
export function affectedOf(vuln: Obj, products: Map<string, CsafProduct>, notes: string[]): AffectedPackage[] {
  const status = obj(vuln.product_status) ?? {};
  const byKey = new Map<string, AffectedPackage>();
  const unidentified = new Set<string>();
  const idsOf = (keys: readonly string[]) => keys.flatMap((k) => arr(status[k]).map(str).filter((x): x is string => !!x));
  const place = (ids: string[], kind: 'affected' | 'fixed' | 'unaffected') => {
    for (const id of ids) {
      const p = products.get(id);
      if (!p) {
        notes.push(`Product ${id} is named in product_status but not in the product tree.`);
        continue;
      }
      const cpe = p.cpe ? parseCpe(p.cpe) : null;
      const identity = p.purl ? purlIdentity(p.purl) : cpe && cpe.vendor && cpe.product ? `cpe:${cpe.vendor}:${cpe.product}` : null;
      if (!identity) {
        unidentified.add(p.name);
        continue;
      }
      // A component's statement is kept apart per platform: it never decides the package elsewhere.
      const platform = p.platform ? { name: p.platform.name, purl: p.platform.purl ? purlIdentity(p.platform.purl) : null, cpe: p.platform.cpe } : null;
      const key = platform ? `${identity}\u0000${platform.purl ?? platform.cpe ?? platform.name}` : identity;
      let pkg = byKey.get(key);
      if (!pkg) {
        const type = p.purl ? /^pkg:([^/]+)\//i.exec(p.purl)?.[1]?.toLowerCase() ?? '' : '';
        pkg = p.purl
          ? { ecosystem: ECOSYSTEM[type] ?? type, name: purlName(p.purl), purl: identity, ranges: [], versions: [], fixed: [], unaffected: [] }
          : { ecosystem: 'generic', name: cpe!.product, purl: null, cpe: `cpe:2.3:${cpe!.part === '*' ? 'a' : cpe!.part}:${cpe!.vendor}:${cpe!.product}:*:*:*:*:*:*:*:*`, ranges: [], versions: [], fixed: [], unaffected: [] };
        if (platform) pkg.platform = platform;
        byKey.set(key, pkg);
      }
      const vers = p.range ? versToEvents(p.range) : null;
      if (p.range && !vers) notes.push(`The range "${p.range}" of ${p.name} is not a vers range hunt can read.`);
      if (kind === 'affected') {
        if (vers?.events.length) pkg.ranges.push({ type: 'ECOSYSTEM', events: vers.events });
        for (const v of [...(vers?.versions ?? []), ...(p.version && !p.range ? [p.version] : [])]) if (!pkg.versions.includes(v)) pkg.versions.push(v);
        // An affected product with no version at all (a product_name, a CPE without version): every version.
        if (!p.version && !p.range) pkg.ranges.push({ type: 'ECOSYSTEM', events: [{ introduced: '0' }] });
      } else {
        const list = kind === 'fixed' ? pkg.fixed! : pkg.unaffected!;
        for (const v of [...(vers?.versions ?? []), ...(p.version && !p.range ? [p.version] : [])]) if (!list.includes(v)) list.push(v);
      }
    }
  };
  place(idsOf(AFFECTED), 'affected');
  place(idsOf(FIXED), 'fixed');
  place(idsOf(NOT_AFFECTED), 'unaffected');
  if (unidentified.size) notes.push(`No purl or CPE identifies ${[...unidentified].sort().slice(0, 5).join(', ')}${unidentified.size > 5 ? ` and ${unidentified.size - 5} more` : ''}: not matched.`);
  return [...byKey.values()].sort((a, b) => (a.purl ?? a.cpe ?? '').localeCompare(b.purl ?? b.cpe ?? ''));
}

/** `pkg:maven/org.apache.logging.log4j/log4j-core` → `org.apache.logging.log4j:log4j-core` (OSV's Maven name); otherwise namespace/name. */
function purlName(purl: string): string {
  const m = /^pkg:([^/]+)\/(.+)$/i.exec(purlIdentity(purl));
  if (!m) return purl;
  const parts = m[2]!.split('/').map(decodeVers);
  if (m[1]!.toLowerCase() === 'maven' && parts.length === 2) return `${parts[0]}:${parts[1]}`;
  return parts.join('/');
}

function iso(v: unknown): string | null {
  const s = str(v);
  if (!s) return null;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/**
 * One entry per vulnerability of a CSAF document, keyed `<tracking id>/<CVE or position>`. A
 * document without vulnerabilities (a pure informational advisory) gives one entry of its notes.
 */
export function entriesFromCsaf(doc: unknown, publisherFallback: string, url: string | null): IntelEntry[] {
  const root = obj(doc)!;
  const d = obj(root.document)!;
  const tracking = obj(d.tracking)!;
  const trackingId = str(tracking.id)!;
  const publisher = str(obj(d.publisher)?.name) ?? publisherFallback;
  const products = productsOf(root.product_tree);
  const docNotes = arr(d.notes).map((n) => str(obj(n)?.text)).filter((t): t is string => !!t && t.length < 20_000);
  const references = arr(d.references).map((r) => str(obj(r)?.url)).filter((u): u is string => !!u && /^https?:\/\//i.test(u));
  const selfUrl = arr(d.references).map(obj).find((r) => str(r?.category) === 'self' && /^https?:/.test(str(r?.url) ?? ''));
  const severityWord = str(obj(d.aggregate_severity)?.text);
  // CSAF 2.1's withdrawn category; a 2.0 provider withdraws by publishing a final revision saying so in prose.
  const withdrawn = str(d.category) === 'csaf_withdrawn' ? iso(tracking.current_release_date) : null;
  const vulns = arr(root.vulnerabilities).map(obj).filter((v): v is Obj => !!v);
  const out: IntelEntry[] = [];
  vulns.forEach((v, i) => {
    const cve = str(v.cve)?.toUpperCase() ?? null;
    const ids = arr(v.ids).map((x) => str(obj(x)?.text)).filter((x): x is string => !!x && x.length < 200);
    const notes: string[] = [];
    const affected = affectedOf(v, products, notes);
    const severity = arr(v.scores).flatMap((s) => {
      const o = obj(s);
      return [['CVSS_V3', obj(o?.cvss_v3)?.vectorString], ['CVSS_V2', obj(o?.cvss_v2)?.vectorString]].flatMap(([type, vec]) => (str(vec) ? [{ type: type as string, score: str(vec)! }] : []));
    });
    const remediations = arr(v.remediations).map((r) => {
      const o = obj(r);
      return o && str(o.details) ? `Remediation (${str(o.category) ?? 'unspecified'}): ${str(o.details)}${str(o.url) ? ` ${str(o.url)}` : ''}` : null;
    }).filter((x): x is string => !!x);
    const id = cve && CVE_RE.test(cve) ? cve : `${trackingId}${vulns.length > 1 ? `#${i + 1}` : ''}`;
    const record: VulnerabilityRecord = {
      format: 'csaf',
      id,
      aliases: [...new Set([trackingId, ...ids].filter((x) => x !== id))],
      withdrawn,
      severity: [...new Map(severity.map((s) => [s.score, s])).values()],
      databaseSeverity: severityWord,
      affected,
      notes,
    };
    const vulnNotes = arr(v.notes).map((n) => str(obj(n)?.text)).filter((t): t is string => !!t && t.length < 20_000);
    const title = str(v.title) ?? str(d.title)!;
    const packages = affected.filter((a) => a.versions.length || a.ranges.length).map((a) => a.name);
    out.push({
      externalId: `${trackingId}/${cve ?? i + 1}`,
      title: `${cve ? `${cve} (${trackingId})` : trackingId}: ${title}`.slice(0, 1000),
      url: str(selfUrl?.url) ?? url,
      publisher,
      publishedAt: iso(v.release_date) ?? iso(tracking.initial_release_date),
      updatedAt: iso(tracking.current_release_date),
      language: str(d.lang)?.slice(0, 2).toLowerCase() ?? 'en',
      contentText: normaliseText([
        title,
        ...vulnNotes,
        ...remediations,
        `Identifiers: ${[id, ...record.aliases].join(', ')}.`,
        packages.length ? `Affected: ${packages.join('; ')}.` : '',
        ...notes,
      ].filter(Boolean).join('\n\n')).slice(0, 100_000),
      contentHtml: null,
      indicators: cve && CVE_RE.test(cve) ? [{ type: 'cve', value: cve, confidence: 1, origin: `csaf:${trackingId}` }] : [],
      references: [...new Set([...references, ...arr(v.references).map((r) => str(obj(r)?.url)).filter((u): u is string => !!u && /^https?:\/\//i.test(u))])],
      tags: ['csaf', ...(severityWord ? [`severity:${severityWord.toLowerCase()}`] : []), ...(withdrawn ? ['revoked'] : [])],
      raw: { document: { tracking: { id: trackingId, version: str(tracking.version), status: str(tracking.status) } }, vulnerability: v },
      vulnerability: record,
    });
  });
  if (vulns.length === 0) {
    out.push({
      externalId: trackingId,
      title: `${trackingId}: ${str(d.title)}`.slice(0, 1000),
      url: str(selfUrl?.url) ?? url,
      publisher,
      publishedAt: iso(tracking.initial_release_date),
      updatedAt: iso(tracking.current_release_date),
      language: 'en',
      contentText: normaliseText([str(d.title)!, ...docNotes].join('\n\n')).slice(0, 100_000),
      contentHtml: null,
      indicators: [],
      references,
      tags: ['csaf'],
      raw: { document: { tracking: { id: trackingId } } },
    });
  }
  return out;
}
