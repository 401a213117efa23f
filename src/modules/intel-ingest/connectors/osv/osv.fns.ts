import { normaliseText } from '../text.fns.js';
import type { AffectedPackage, IntelEntry, VulnerabilityRecord } from '../../../intel/index.js';
import { ConnectorParseError } from '../connector.js';
import { bufferSource, inflate, inflateSync, zipEntries, type ZipEntry, type ZipSource } from './zip.fns.js';

/**
 * OSV records (https://ossf.github.io/osv-schema/) → intel entries carrying their structured
 * vulnerability data. One entry per record; records that are the same vulnerability (a GHSA and
 * a PYSEC aliasing one CVE) become one threat in hunt, keyed by the CVE. Pure, no I/O.
 */

export const isZip = (head: Buffer) => head.length >= 4 && head.readUInt32LE(0) === 0x04034b50;

/** Inflated bytes one sync reads of a zip, by default (RAMPART_OSV_MAX_INFLATED_BYTES; docs/hunt.md). */
export const DEFAULT_MAX_INFLATED_BYTES = 8 * 1024 * 1024 * 1024;

/**
 * The `.json` members of a zip, in the zip's order, with the inflated bytes they add up to
 * checked against `maxInflatedBytes` before each is inflated (the sizes the directory declares
 * bind: inflation never goes past them). Members of any other name are skipped unread.
 */
function* jsonMembers(source: ZipSource, maxInflatedBytes: number): Generator<ZipEntry> {
  let total = 0;
  for (const e of zipEntries(source)) {
    if (!e.name.toLowerCase().endsWith('.json')) continue;
    total += e.size;
    if (total > maxInflatedBytes) {
      throw new ConnectorParseError(`The OSV zip inflates to more than ${maxInflatedBytes} bytes (at ${e.name}); raise RAMPART_OSV_MAX_INFLATED_BYTES if the export is genuine`);
    }
    yield e;
  }
}

/** Each `.json` member of a zip of OSV records held in memory, parsed, in the zip's order (zip.fns.ts). */
export function* osvRecordsInZip(source: ZipSource, maxInflatedBytes = DEFAULT_MAX_INFLATED_BYTES): Generator<unknown> {
  for (const e of jsonMembers(source, maxInflatedBytes)) yield parseJson(inflateSync(source, e).toString('utf8'), e.name);
}

/** The same, each member inflated off the event loop (a sync's download: other jobs and the heartbeat go on). */
export async function* osvRecordsInZipAsync(source: ZipSource, maxInflatedBytes = DEFAULT_MAX_INFLATED_BYTES): AsyncGenerator<unknown> {
  for (const e of jsonMembers(source, maxInflatedBytes)) yield parseJson((await inflate(source, e)).toString('utf8'), e.name);
}

/**
 * Each record of a zip of OSV JSON files (OSV's per-ecosystem `all.zip`), a JSON array, one
 * record, or NDJSON, held in memory (tests, small documents; a sync streams from a file).
 */
export function forEachOsvRecord(body: Buffer, onRecord: (record: unknown) => void): void {
  if (isZip(body)) {
    for (const r of osvRecordsInZip(bufferSource(body))) onRecord(r);
    return;
  }
  const text = body.toString('utf8').replace(/^\uFEFF/, '').trim();
  if (text.startsWith('[')) {
    const arr = parseJson(text, 'the document');
    if (!Array.isArray(arr)) throw new ConnectorParseError('The OSV document is not a JSON array of records');
    arr.forEach((r) => onRecord(r));
    return;
  }
  if (!text.startsWith('{')) throw new ConnectorParseError('The OSV document is neither a zip, a JSON array, a record nor NDJSON');
  let single: unknown;
  try {
    single = JSON.parse(text);
  } catch {
    text.split('\n').forEach((l, i) => {
      if (l.trim()) onRecord(parseJson(l, `line ${i + 1}`));
    });
    return;
  }
  onRecord(single);
}

/** Every record of a document, in document order (tests and small documents). */
export function parseOsvDocument(body: Buffer): unknown[] {
  const out: unknown[] = [];
  forEachOsvRecord(body, (r) => out.push(r));
  return out;
}

export function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ConnectorParseError(`The OSV document has invalid JSON in ${where}`);
  }
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const CVE_RE = /^CVE-\d{4}-\d{4,}$/i;
const EVENT_KEYS = ['introduced', 'fixed', 'last_affected', 'limit'] as const;

/** The structured part of one record; null when it is not an OSV record (no id). */
export function vulnerabilityOf(record: unknown): VulnerabilityRecord | null {
  const r = obj(record);
  const id = r && str(r.id);
  if (!r || !id) return null;
  const notes: string[] = [];
  const affected: AffectedPackage[] = [];
  for (const a of arr(r.affected)) {
    const pkg = obj(obj(a)?.package);
    const ecosystem = str(pkg?.ecosystem);
    const name = str(pkg?.name);
    if (!ecosystem || !name) continue;
    const ranges: AffectedPackage['ranges'] = [];
    for (const range of arr(obj(a)!.ranges)) {
      const type = str(obj(range)?.type);
      if (type === 'GIT') {
        notes.push(`A GIT range of ${ecosystem} ${name} (${str(obj(range)?.repo) ?? 'repository'}) is out of scope: commits are not versions.`);
        continue;
      }
      if (type !== 'SEMVER' && type !== 'ECOSYSTEM') {
        notes.push(`A ${type ?? 'typeless'} range of ${ecosystem} ${name} is not understood.`);
        continue;
      }
      const events = arr(obj(range)!.events).flatMap((e) => {
        const o = obj(e);
        const key = o && EVENT_KEYS.find((k) => typeof o[k] === 'string');
        return key ? [{ [key]: String(o[key]).replace(type === 'SEMVER' ? /^v/ : /$^/, '') }] : [];
      });
      if (events.length) ranges.push({ type, events });
    }
    const versions = arr(obj(a)!.versions).filter((v): v is string => typeof v === 'string');
    affected.push({ ecosystem, name, purl: str(pkg?.purl)?.replace(/@[^/@]*$/, '') ?? null, ranges, versions });
  }
  const severity = arr(r.severity).flatMap((s) => {
    const o = obj(s);
    return o && str(o.type) && str(o.score) ? [{ type: str(o.type)!, score: str(o.score)! }] : [];
  });
  return {
    format: 'osv',
    id,
    aliases: arr(r.aliases).filter((a): a is string => typeof a === 'string').map((a) => (CVE_RE.test(a) ? a.toUpperCase() : a)),
    withdrawn: str(r.withdrawn),
    severity,
    databaseSeverity: str(obj(r.database_specific)?.severity),
    affected,
    notes,
  };
}

function iso(v: unknown): string | null {
  const s = str(v);
  if (!s) return null;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

export function entryFromOsv(record: unknown, publisher: string): IntelEntry | null {
  const v = vulnerabilityOf(record);
  if (!v) return null;
  const r = record as Obj;
  const cves = [...new Set([v.id, ...v.aliases].filter((a) => CVE_RE.test(a)).map((a) => a.toUpperCase()))];
  const key = cves[0] ?? v.id;
  const summary = str(r.summary) ?? str(r.details)?.split(/(?<=\.)\s/)[0] ?? v.id;
  const packages = [...new Set(v.affected.map((a) => `${a.ecosystem} ${a.name}`))];
  const text = normaliseText([
    str(r.summary) ?? '',
    str(r.details) ?? '',
    `Identifiers: ${[v.id, ...v.aliases].join(', ')}.`,
    packages.length ? `Packages: ${packages.join('; ')}.` : '',
    v.withdrawn ? `Withdrawn ${v.withdrawn}.` : '',
    ...v.notes,
  ].filter(Boolean).join('\n\n'));
  const references = arr(r.references).map((x) => str(obj(x)?.url)).filter((u): u is string => !!u && /^https?:\/\//i.test(u));
  const tags = ['osv', ...new Set(v.affected.map((a) => a.ecosystem.split(':')[0]!.toLowerCase()))];
  if (v.databaseSeverity) tags.push(`severity:${v.databaseSeverity.toLowerCase()}`);
  if (v.withdrawn) tags.push('revoked');
  return {
    externalId: v.id,
    title: `${key === v.id ? v.id : `${key} (${v.id})`}: ${summary}`.slice(0, 1000),
    url: references.find((u) => u.includes(v.id)) ?? `https://osv.dev/vulnerability/${encodeURIComponent(v.id)}`,
    publisher,
    publishedAt: iso(r.published),
    updatedAt: iso(r.modified),
    language: 'en',
    contentText: text,
    contentHtml: null,
    indicators: cves.map((c) => ({ type: 'cve' as const, value: c, confidence: 1, origin: `osv:${v.id}` })),
    references,
    tags,
    // No copy of the record as `raw`: nothing reads an OSV item's raw (the API returns no raw
    // column; only the ATT&CK import reads its own), and its structured form (`vulnerability`),
    // text and references are stored beside it. The copy was serialized, sent, parsed as jsonb
    // and stored for every record (docs/performance.md, 2026-11-26).
    raw: undefined,
    vulnerability: v,
  };
}
