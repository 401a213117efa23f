/**
 * The ATT&CK catalog the classifier resolves names against: techniques, groups and software.
 * Kept in the database and refreshed by the built-in MITRE ATT&CK source (TAXII, STIX 2.x);
 * this module only builds it from STIX objects and (de)serialises it. Pure, no I/O.
 */

export interface CatalogTechnique {
  /** T1059 or T1059.001 (ICS: T0817). */
  id: string;
  name: string;
  /** Kill-chain phase names (tactic shortnames), e.g. `execution`. */
  tactics: string[];
  /** ATT&CK platform names as given (`Windows`, `IaaS`, `Network Devices`, …). */
  platforms: string[];
}

export interface CatalogGroup {
  /** G0007 */
  id: string;
  name: string;
  aliases: string[];
}

export interface CatalogSoftware {
  /** S0023 */
  id: string;
  name: string;
  aliases: string[];
  type: 'malware' | 'tool';
}

export interface AttackCatalog {
  techniques: Map<string, CatalogTechnique>;
  groups: CatalogGroup[];
  software: CatalogSoftware[];
}

/** The catalog before the first ATT&CK sync: technique ids are still recognised, names are not. */
export const EMPTY_CATALOG: AttackCatalog = Object.freeze({
  techniques: new Map<string, CatalogTechnique>(),
  groups: [],
  software: [],
}) as AttackCatalog;

export function isCatalogEmpty(c: AttackCatalog): boolean {
  return c.techniques.size === 0 && c.groups.length === 0 && c.software.length === 0;
}

/**
 * Tactics in ATT&CK matrix order (Enterprise, with the ICS-only tactics slotted where the ICS matrix
 * puts them). Kill chains and attack paths are sorted by this.
 */
export const TACTICS: ReadonlyArray<{ shortname: string; name: string }> = [
  { shortname: 'reconnaissance', name: 'Reconnaissance' },
  { shortname: 'resource-development', name: 'Resource Development' },
  { shortname: 'initial-access', name: 'Initial Access' },
  { shortname: 'execution', name: 'Execution' },
  { shortname: 'persistence', name: 'Persistence' },
  { shortname: 'privilege-escalation', name: 'Privilege Escalation' },
  { shortname: 'defense-evasion', name: 'Defense Evasion' },
  { shortname: 'evasion', name: 'Evasion' },
  { shortname: 'credential-access', name: 'Credential Access' },
  { shortname: 'discovery', name: 'Discovery' },
  { shortname: 'lateral-movement', name: 'Lateral Movement' },
  { shortname: 'collection', name: 'Collection' },
  { shortname: 'command-and-control', name: 'Command and Control' },
  { shortname: 'exfiltration', name: 'Exfiltration' },
  { shortname: 'inhibit-response-function', name: 'Inhibit Response Function' },
  { shortname: 'impair-process-control', name: 'Impair Process Control' },
  { shortname: 'impact', name: 'Impact' },
];

const TACTIC_RANK = new Map(TACTICS.map((t, i) => [t.shortname, i]));

/** Display name of a tactic shortname (`command-and-control` → `Command and Control`). */
export function tacticName(shortname: string): string {
  const known = TACTICS.find((t) => t.shortname === shortname);
  if (known) return known.name;
  return shortname
    .split('-')
    .map((w) => (w === 'and' ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join(' ');
}

/** Unique tactic shortnames sorted in ATT&CK order (unknown ones last, alphabetically). */
export function sortTactics(tactics: Iterable<string>): string[] {
  const rank = (t: string): number => TACTIC_RANK.get(t) ?? TACTICS.length;
  return [...new Set(tactics)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

export const TECHNIQUE_ID_RE = /^T\d{4}(?:\.\d{3})?$/;
const GROUP_ID_RE = /^G\d{4}$/;
const SOFTWARE_ID_RE = /^S\d{4}$/;
const ATTACK_SOURCES = new Set(['mitre-attack', 'mitre-ics-attack', 'mitre-mobile-attack']);

type Rec = Record<string, unknown>;

function isRecord(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim()) : [];
}

function attackId(o: Rec): string | null {
  if (!Array.isArray(o.external_references)) return null;
  for (const r of o.external_references) {
    if (!isRecord(r) || typeof r.source_name !== 'string' || typeof r.external_id !== 'string') continue;
    if (ATTACK_SOURCES.has(r.source_name.toLowerCase())) return r.external_id.trim().toUpperCase();
  }
  return null;
}

function uniq(values: Iterable<string>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const v of values) {
    const key = v.toLowerCase();
    if (!seen.has(key)) {
      seen.add(key);
      out.push(v);
    }
  }
  return out;
}

/** Aliases with the name first, deduplicated case-insensitively. */
function aliasesWithName(name: string, aliases: string[]): string[] {
  return uniq([name, ...aliases]);
}

/**
 * Builds the catalog from ATT&CK STIX objects (a bundle's `objects`, or TAXII pages concatenated):
 * - `attack-pattern` with a `mitre-attack` (or ICS/mobile) external id T…; tactics from
 *   `kill_chain_phases[].phase_name` of the mitre kill chains; platforms from `x_mitre_platforms`;
 * - `intrusion-set` with id G… and `aliases`;
 * - `malware` / `tool` with id S… and `x_mitre_aliases` (falling back to STIX `aliases`).
 * Revoked and deprecated objects are skipped; anything else (relationships, tactics, identities,
 * markings, non-objects) is ignored. A technique present in several domains merges its tactics and
 * platforms.
 */
export function catalogFromStixObjects(objects: unknown[]): AttackCatalog {
  const techniques = new Map<string, CatalogTechnique>();
  const groups = new Map<string, CatalogGroup>();
  const software = new Map<string, CatalogSoftware>();
  for (const o of objects) {
    if (!isRecord(o) || typeof o.type !== 'string') continue;
    if (o.revoked === true || o.x_mitre_deprecated === true) continue;
    const name = typeof o.name === 'string' ? o.name.trim() : '';
    const id = attackId(o);
    if (!name || !id) continue;
    if (o.type === 'attack-pattern' && TECHNIQUE_ID_RE.test(id)) {
      const tactics = Array.isArray(o.kill_chain_phases)
        ? o.kill_chain_phases
            .filter(isRecord)
            .filter((k) => typeof k.kill_chain_name === 'string' && k.kill_chain_name.startsWith('mitre-'))
            .map((k) => (typeof k.phase_name === 'string' ? k.phase_name.trim().toLowerCase() : ''))
            .filter((p) => p !== '')
        : [];
      const platforms = strings(o.x_mitre_platforms).filter((p) => p.toLowerCase() !== 'none');
      const prev = techniques.get(id);
      techniques.set(id, {
        id,
        name: prev?.name ?? name,
        tactics: sortTactics([...(prev?.tactics ?? []), ...tactics]),
        platforms: uniq([...(prev?.platforms ?? []), ...platforms]),
      });
    } else if (o.type === 'intrusion-set' && GROUP_ID_RE.test(id)) {
      const prev = groups.get(id);
      groups.set(id, { id, name: prev?.name ?? name, aliases: aliasesWithName(prev?.name ?? name, [...(prev?.aliases ?? []), ...strings(o.aliases)]) });
    } else if ((o.type === 'malware' || o.type === 'tool') && SOFTWARE_ID_RE.test(id)) {
      const aliases = strings(o.x_mitre_aliases).length > 0 ? strings(o.x_mitre_aliases) : strings(o.aliases);
      const prev = software.get(id);
      software.set(id, { id, name: prev?.name ?? name, aliases: aliasesWithName(prev?.name ?? name, [...(prev?.aliases ?? []), ...aliases]), type: o.type });
    }
  }
  return { techniques, groups: [...groups.values()], software: [...software.values()] };
}

/**
 * ATT&CK ids of revoked or deprecated techniques, groups and software among STIX objects: what a
 * stored catalog refreshed by upserts of {@link catalogFromStixObjects} should delete.
 */
export function withdrawnIdsFromStixObjects(objects: unknown[]): string[] {
  const out = new Set<string>();
  for (const o of objects) {
    if (!isRecord(o) || !['attack-pattern', 'intrusion-set', 'malware', 'tool'].includes(String(o.type))) continue;
    if (o.revoked !== true && o.x_mitre_deprecated !== true) continue;
    const id = attackId(o);
    if (id && (TECHNIQUE_ID_RE.test(id) || GROUP_ID_RE.test(id) || SOFTWARE_ID_RE.test(id))) out.add(id);
  }
  return [...out];
}

/** Plain-JSON form for storage (a Map does not survive JSON.stringify). */
export interface AttackCatalogJson {
  techniques: CatalogTechnique[];
  groups: CatalogGroup[];
  software: CatalogSoftware[];
}

export function catalogToJson(c: AttackCatalog): AttackCatalogJson {
  return { techniques: [...c.techniques.values()], groups: c.groups, software: c.software };
}

/** Reads {@link AttackCatalogJson} back, dropping malformed rows; anything unreadable gives an empty catalog. */
export function catalogFromJson(json: unknown): AttackCatalog {
  if (!isRecord(json)) return { techniques: new Map(), groups: [], software: [] };
  const techniques = new Map<string, CatalogTechnique>();
  for (const t of Array.isArray(json.techniques) ? json.techniques : []) {
    if (!isRecord(t) || typeof t.id !== 'string' || typeof t.name !== 'string' || !TECHNIQUE_ID_RE.test(t.id)) continue;
    techniques.set(t.id, { id: t.id, name: t.name, tactics: strings(t.tactics), platforms: strings(t.platforms) });
  }
  const groups: CatalogGroup[] = [];
  for (const g of Array.isArray(json.groups) ? json.groups : []) {
    if (!isRecord(g) || typeof g.id !== 'string' || typeof g.name !== 'string') continue;
    groups.push({ id: g.id, name: g.name, aliases: aliasesWithName(g.name, strings(g.aliases)) });
  }
  const software: CatalogSoftware[] = [];
  for (const s of Array.isArray(json.software) ? json.software : []) {
    if (!isRecord(s) || typeof s.id !== 'string' || typeof s.name !== 'string') continue;
    software.push({ id: s.id, name: s.name, aliases: aliasesWithName(s.name, strings(s.aliases)), type: s.type === 'tool' ? 'tool' : 'malware' });
  }
  return { techniques, groups, software };
}
