import { createHash } from 'node:crypto';

/**
 * Pure STIX 2.1 functions of intel out: deterministic ids, patterns, and the objects the TAXII
 * server, the STIX export and the MISP feed are built from. No I/O here.
 */

/** Rampart's UUIDv5 namespace for every id it derives (indicators, reports, collections, events). */
export const RAMPART_NAMESPACE = '3c0e4b7a-8d55-5d2e-9a41-6b1f2e7c9d10';

/** RFC 9562 UUID version 5 (SHA-1 of namespace bytes + name). STIX wants v4 or v5 ids. */
export function uuidv5(name: string, namespace = RAMPART_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The id of one indicator of one organization: the same wherever and whenever it is served. */
export function indicatorUuid(orgId: string, type: string, normalizedValue: string): string {
  return uuidv5(`indicator|${orgId}|${type}|${normalizedValue}`);
}

/** The organization's "all indicators" collection (per-source collections use the source's id). */
export function allCollectionId(orgId: string): string {
  return uuidv5(`collection|${orgId}|all`);
}

export function reportUuid(orgId: string, itemId: string): string {
  return uuidv5(`report|${orgId}|${itemId}`);
}

function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

const HASH_NAMES: Record<string, string> = { md5: 'MD5', sha1: "'SHA-1'", sha256: "'SHA-256'", sha512: "'SHA-512'", ssdeep: 'SSDEEP' };
const CERT_HASH_BY_LENGTH: Record<number, string> = { 32: 'MD5', 40: "'SHA-1'", 64: "'SHA-256'" };
const SIMPLE_PATHS: Record<string, string> = {
  ipv4: 'ipv4-addr:value',
  ipv6: 'ipv6-addr:value',
  domain: 'domain-name:value',
  url: 'url:value',
  email: 'email-addr:value',
  filename: 'file:name',
  'registry-key': 'windows-registry-key:key',
  mutex: 'mutex:name',
  process: 'process:name',
};

/** The indicator types that have a STIX pattern (cve and other have none: they are not served as indicators). */
export const STIX_TYPES: ReadonlySet<string> = new Set([...Object.keys(SIMPLE_PATHS), ...Object.keys(HASH_NAMES), 'asn', 'cert']);

/** A STIX 2.1 pattern matching exactly this value, or null when the type has no observable. */
export function stixPattern(type: string, value: string): string | null {
  const simple = SIMPLE_PATHS[type];
  if (simple) return `[${simple} = ${quote(value)}]`;
  const hash = HASH_NAMES[type];
  if (hash) return `[file:hashes.${hash} = ${quote(value)}]`;
  if (type === 'asn') {
    const m = /^(?:AS)?(\d{1,10})$/i.exec(value.trim());
    return m ? `[autonomous-system:number = ${Number(m[1])}]` : null;
  }
  if (type === 'cert') {
    const hex = value.replace(/:/g, '');
    const name = /^[0-9a-f]+$/i.test(hex) ? CERT_HASH_BY_LENGTH[hex.length] : undefined;
    return name ? `[x509-certificate:hashes.${name} = ${quote(hex.toLowerCase())}]` : null;
  }
  return null;
}

/** One materialized indicator (a row of intel_out_objects, or the same computed for an export). */
export interface IndicatorFacts {
  orgId: string;
  type: string;
  value: string;
  created: Date;
  modified: Date;
  validFrom: Date;
  validUntil: Date | null;
  /** 0..100 */
  confidence: number;
  labels: string[];
  revoked: boolean;
  /** The UUID of its id when it is not intel's indicator of the value (a block list's entry has its own). */
  uuid?: string;
  description?: string;
}

/** STIX timestamps: RFC 3339 UTC with millisecond precision. */
export function stixTime(d: Date): string {
  return d.toISOString();
}

/** The STIX indicator object; null when the type has no pattern. */
export function indicatorObject(f: IndicatorFacts): Record<string, unknown> | null {
  const pattern = stixPattern(f.type, f.value);
  if (!pattern) return null;
  const obj: Record<string, unknown> = {
    type: 'indicator',
    spec_version: '2.1',
    id: `indicator--${f.uuid ?? indicatorUuid(f.orgId, f.type, f.value)}`,
    created: stixTime(f.created),
    modified: stixTime(f.modified < f.created ? f.created : f.modified),
    name: f.value,
    indicator_types: ['malicious-activity'],
    pattern,
    pattern_type: 'stix',
    pattern_version: '2.1',
    valid_from: stixTime(f.validFrom),
    confidence: Math.max(0, Math.min(100, Math.round(f.confidence))),
  };
  // STIX: valid_until must be later than valid_from.
  if (f.validUntil && f.validUntil.getTime() > f.validFrom.getTime()) obj.valid_until = stixTime(f.validUntil);
  if (f.description) obj.description = f.description;
  if (f.labels.length) obj.labels = f.labels;
  if (f.revoked) obj.revoked = true;
  return obj;
}

/** A report for one intel item, referring to its indicators. */
export function reportObject(r: { orgId: string; itemId: string; title: string; published: Date; created: Date; modified: Date; url: string | null; indicatorIds: string[] }): Record<string, unknown> {
  const obj: Record<string, unknown> = {
    type: 'report',
    spec_version: '2.1',
    id: `report--${reportUuid(r.orgId, r.itemId)}`,
    created: stixTime(r.created),
    modified: stixTime(r.modified < r.created ? r.created : r.modified),
    name: r.title || 'Untitled intel item',
    report_types: ['threat-report'],
    published: stixTime(r.published),
    object_refs: r.indicatorIds,
  };
  if (r.url) obj.external_references = [{ source_name: 'rampart-item-source', url: r.url }];
  return obj;
}

/** An ATT&CK technique as a STIX attack-pattern (one id per technique, whatever the organization). */
export function attackPatternObject(technique: string, name: string, at: Date): Record<string, unknown> {
  return {
    type: 'attack-pattern',
    spec_version: '2.1',
    id: `attack-pattern--${uuidv5(`attack-pattern|${technique}`)}`,
    created: stixTime(at),
    modified: stixTime(at),
    name: name || technique,
    external_references: [{ source_name: 'mitre-attack', external_id: technique, url: `https://attack.mitre.org/techniques/${technique.replace('.', '/')}/` }],
  };
}

/** `indicator indicates attack-pattern`, id derived from both ends. */
export function indicatesRelationship(indicatorId: string, targetId: string, at: Date): Record<string, unknown> {
  return {
    type: 'relationship',
    spec_version: '2.1',
    id: `relationship--${uuidv5(`indicates|${indicatorId}|${targetId}`)}`,
    created: stixTime(at),
    modified: stixTime(at),
    relationship_type: 'indicates',
    source_ref: indicatorId,
    target_ref: targetId,
  };
}
