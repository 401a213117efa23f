import type { IntelEntry, StructuredIndicator } from '../../../intel/index.js';
import { ConnectorParseError } from '../connector.js';
import { indicatorsFromPattern } from './stix-pattern.fns.js';
import { isHttpUrl, normaliseText } from '../text.fns.js';

/**
 * Pure TAXII 2.1 / STIX 2.1 functions: judge a TAXII envelope, map STIX objects to entries.
 * No I/O here; taxii.connector.ts does the HTTP.
 */

export interface StixObjectsContext {
  /** Title of the TAXII collection the objects came from; becomes a `taxii-collection:<title>` tag. */
  collectionTitle?: string;
  /** Fallback publisher when an object has no resolvable `created_by_ref` (e.g. the source's name). */
  publisher?: string | null;
}

/** The STIX types that become entries; the others (identity, relationship, marking, …) only give context. */
export const STIX_ENTRY_TYPES: ReadonlySet<string> = new Set([
  'report',
  'indicator',
  'vulnerability',
  'malware',
  'intrusion-set',
  'attack-pattern',
]);

/** STIX `confidence` (0–100) assumed when an object states none. */
export const STIX_DEFAULT_CONFIDENCE = 80;
export const PATTERN_ERROR_TAG = 'pattern-error';

type StixObject = Record<string, unknown> & { type: string; id: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return Object.keys(v).length ? 'an object' : 'an empty object';
  return `a ${typeof v}`;
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
}

/**
 * One page of `GET …/objects/`: `{ more?, next?, objects? }`. The empty page medallion and others
 * send for an empty collection (`{}`) is valid: no objects, no more. A TAXII error message that
 * arrived with a 2xx status is refused rather than read as an empty page.
 */
export function validateTaxiiEnvelope(json: unknown): { objects: unknown[]; more: boolean; next: string | null } {
  if (!isRecord(json)) {
    throw new ConnectorParseError(`The TAXII server sent ${describe(json)} where an envelope ({"objects": [...]}) was expected`);
  }
  const objects = json.objects;
  if (objects === undefined || objects === null) {
    if (typeof json.http_status === 'string' || typeof json.http_status === 'number') {
      const detail = [str(json.title), str(json.description)].filter((x) => x !== null).join(': ');
      throw new ConnectorParseError(`The TAXII server answered with an error (${String(json.http_status)})${detail ? `: ${detail.slice(0, 200)}` : ''}`);
    }
    return { objects: [], more: json.more === true, next: nextToken(json.next) };
  }
  if (!Array.isArray(objects)) {
    throw new ConnectorParseError(`The TAXII envelope's "objects" is ${describe(objects)}, expected a list of STIX objects`);
  }
  return { objects, more: json.more === true, next: nextToken(json.next) };
}

function nextToken(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return str(v);
}

/**
 * STIX objects → entries, one per report / indicator / vulnerability / malware / intrusion-set /
 * attack-pattern (other types only give context: an `identity` names the publisher of the objects
 * whose `created_by_ref` points at it). When the same id comes more than once (a TAXII "all
 * versions" answer, a bundle with history) only the latest `modified` is kept, at the position of
 * the first: the sync stores one item per id. Objects without a string `id`/`type` are skipped.
 * Never throws for a bad object: an unparseable pattern yields the entry with no indicators and
 * the `pattern-error` tag.
 */
export function entriesFromStixObjects(objects: unknown[], ctx: StixObjectsContext): IntelEntry[] {
  const identities = new Map<string, string>();
  const latest = new Map<string, StixObject>();
  for (const o of objects) {
    if (!isRecord(o) || typeof o.type !== 'string' || typeof o.id !== 'string' || o.id.trim() === '') continue;
    const obj = o as StixObject;
    if (obj.type === 'identity') {
      const name = str(obj.name);
      if (name) identities.set(obj.id, name);
      continue;
    }
    if (!STIX_ENTRY_TYPES.has(obj.type)) continue;
    const prev = latest.get(obj.id);
    if (!prev || modifiedMillis(obj) >= modifiedMillis(prev)) latest.set(obj.id, obj);
  }
  return [...latest.values()].map((o) => entryFromStixObject(o, identities, ctx));
}

function modifiedMillis(o: Record<string, unknown>): number {
  const t = typeof o.modified === 'string' ? Date.parse(o.modified) : Number.NaN;
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}

function iso(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  // STIX timestamps are always UTC with a 'Z'; one without a zone would be read as local time.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i.test(v.trim())) return null;
  const t = new Date(v.trim());
  return Number.isNaN(t.getTime()) ? null : t.toISOString();
}



interface ExternalReference {
  sourceName: string;
  externalId: string | null;
  url: string | null;
}

function externalReferences(o: StixObject): ExternalReference[] {
  if (!Array.isArray(o.external_references)) return [];
  return o.external_references.filter(isRecord).map((r) => ({
    sourceName: (str(r.source_name) ?? '').toLowerCase(),
    externalId: str(r.external_id),
    url: str(r.url),
  }));
}

// ATT&CK's three matrices each have a source_name; their ids (T1234, T1234.001, G0007, S0002, …) share one space.
const ATTACK_SOURCES = new Set(['mitre-attack', 'mitre-ics-attack', 'mitre-mobile-attack']);
const CVE_RE = /^CVE-\d{4}-\d{4,}$/i;

function confidenceOf(o: StixObject): number {
  const c = o.confidence;
  const value = typeof c === 'number' && Number.isFinite(c) && c >= 0 && c <= 100 ? c : STIX_DEFAULT_CONFIDENCE;
  return value / 100;
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.map(str).filter((s): s is string => s !== null) : [];
}

function entryFromStixObject(o: StixObject, identities: ReadonlyMap<string, string>, ctx: StixObjectsContext): IntelEntry {
  const refs = externalReferences(o);
  const links = [...new Set(refs.map((r) => r.url).filter((u): u is string => u !== null && isHttpUrl(u)))];
  const confidence = confidenceOf(o);
  const revoked = o.revoked === true;

  // labels are STIX's free tags; the *_types vocabularies are where 2.1 moved what 2.0 put in labels.
  const tags = new Set<string>([...stringList(o.labels), ...stringList(o[`${o.type}_types`])]);
  for (const r of refs) if (ATTACK_SOURCES.has(r.sourceName) && r.externalId) tags.add(`attack:${r.externalId.toUpperCase()}`);
  if (revoked) tags.add('revoked');
  const collection = str(ctx.collectionTitle);
  if (collection) tags.add(`taxii-collection:${collection}`);

  const name = str(o.name);
  let indicators: StructuredIndicator[] = [];
  let cve: string | null = null;
  if (o.type === 'vulnerability') {
    const fromRef = refs.find((r) => r.sourceName === 'cve' && r.externalId !== null && CVE_RE.test(r.externalId));
    cve = fromRef?.externalId?.toUpperCase() ?? (name && CVE_RE.test(name) ? name.toUpperCase() : null);
    if (cve) indicators.push({ type: 'cve', value: cve, confidence, origin: 'stix:external_references' });
  } else if (o.type === 'indicator') {
    const patternType = str(o.pattern_type)?.toLowerCase() ?? 'stix';
    if (patternType === 'stix') {
      const result = patternIndicators(o.pattern, confidence);
      if (result === 'error') tags.add(PATTERN_ERROR_TAG);
      else indicators = result;
    }
  }
  // A revoked object is withdrawn by its producer: keep the entry (it may replace a stored one)
  // but assert nothing.
  if (revoked) indicators = [];

  const createdBy = typeof o.created_by_ref === 'string' ? identities.get(o.created_by_ref) : undefined;
  const description = typeof o.description === 'string' ? normaliseText(o.description) : '';
  return {
    externalId: o.id,
    title: name ?? cve ?? `${o.type} ${o.id}`,
    url: links[0] ?? null,
    publisher: createdBy ?? ctx.publisher ?? null,
    publishedAt: (o.type === 'report' ? iso(o.published) : null) ?? iso(o.created),
    updatedAt: iso(o.modified),
    language: str(o.lang),
    contentText: description,
    contentHtml: null,
    indicators,
    references: links,
    tags: [...tags],
    raw: o,
  };
}

/** Indicators of a STIX pattern, or 'error' when there is no pattern or it does not parse. */
function patternIndicators(pattern: unknown, confidence: number): StructuredIndicator[] | 'error' {
  if (typeof pattern !== 'string' || pattern.trim() === '') return 'error';
  try {
    return indicatorsFromPattern(pattern, confidence);
  } catch {
    // Normally a StixPatternError. Anything else would be a parser bug; one odd pattern must
    // still not fail the whole collection, so it is tagged the same way.
    return 'error';
  }
}
