import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Database } from '../../platform/db/database.js';
import { factsOf, refreshObjects, walkObjects, type ExportFilters } from './objects.store.js';
import { walkItemGroups } from './item-groups.store.js';
import { primedStream } from './streams.js';
import { CSV_COLUMNS, defang, listLine } from './export.fns.js';
import { csvRow } from '../../platform/csv.js';
import { MISP_EVENT_SUFFIX, mispAttribute, mispEventHead, mispEventPrefix } from './misp.fns.js';
import { allCollectionId, attackPatternObject, indicatesRelationship, indicatorObject, indicatorUuid, reportObject, stixTime, uuidv5 } from './stix.fns.js';
import { organizationName } from '../organizations/index.js';
import { techniqueIdOf } from '../intel/index.js';

export const EXPORT_FORMATS = ['txt', 'csv', 'stix', 'misp'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportQuery extends ExportFilters {
  format: ExportFormat;
  defang?: boolean | undefined;
}

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
  stix: 'application/stix+json;version=2.1',
  misp: 'application/json',
};

/** A stable epoch for objects Rampart derives from shared catalogs (ATT&CK patterns). */
const CATALOG_EPOCH = new Date('2026-01-01T00:00:00.000Z');

/**
 * The exports, streamed: each reads the organization's served indicators in keyset batches and
 * writes them as it goes, so memory stays flat whatever their number (bench/intel-out.bench.ts).
 */
export function createExportService(deps: { db: Database }) {
  const { db } = deps;

  async function* txt(orgId: string, q: ExportQuery): AsyncGenerator<string> {
    for await (const batch of walkObjects(db, orgId, allCollectionId(orgId), q, 'list')) {
      let chunk = '';
      for (const r of batch) {
        const line = listLine(r.type, r.normalizedValue, q.defang === true);
        if (line !== null) chunk += `${line}\n`;
      }
      if (chunk) yield chunk;
    }
  }

  async function* csv(orgId: string, q: ExportQuery): AsyncGenerator<string> {
    yield csvRow([...CSV_COLUMNS]);
    for await (const batch of walkObjects(db, orgId, allCollectionId(orgId), q, 'full')) {
      let chunk = '';
      for (const r of batch) {
        const value = q.defang ? defang(r.type, r.normalizedValue) : r.normalizedValue;
        chunk += csvRow([r.type, value, r.confidence, stixTime(r.validFrom), r.validUntil ? stixTime(r.validUntil) : null, stixTime(r.created), stixTime(r.modified), r.labels.join(';'), `indicator--${indicatorUuid(orgId, r.type, r.normalizedValue)}`]);
      }
      yield chunk;
    }
  }

  /** A bundle: the indicators, then a report per item, the ATT&CK techniques it names and `indicates` relationships. */
  async function* stix(orgId: string, q: ExportQuery): AsyncGenerator<string> {
    yield `{"type":"bundle","id":"bundle--${randomUUID()}","objects":[`;
    let first = true;
    const sep = () => (first ? ((first = false), '') : ',');
    for await (const batch of walkObjects(db, orgId, allCollectionId(orgId), q, 'full')) {
      let chunk = '';
      for (const r of batch) {
        const o = indicatorObject(factsOf(orgId, r));
        if (o) chunk += sep() + JSON.stringify(o);
      }
      yield chunk;
    }
    // ATT&CK has some hundreds of techniques: remembering which were written is bounded.
    const patterns = new Set<string>();
    for await (const g of walkItemGroups(db, orgId, { filters: q })) {
      const indicatorIds = g.indicators.map((i) => `indicator--${indicatorUuid(orgId, i.type, i.value)}`);
      const modified = g.indicators.reduce((m, i) => (i.modified > m ? i.modified : m), g.changedAt);
      let chunk = sep() + JSON.stringify(reportObject({ orgId, itemId: g.itemId, title: g.title, published: g.publishedAt ?? g.createdAt, created: g.createdAt, modified, url: g.url, indicatorIds }));
      for (const t of g.techniques) {
        const technique = techniqueIdOf(t);
        if (!/^T\d{4}(\.\d{3})?$/.test(technique)) continue;
        const pattern = attackPatternObject(technique, t.techniqueName ?? technique, CATALOG_EPOCH);
        if (!patterns.has(technique)) {
          patterns.add(technique);
          chunk += sep() + JSON.stringify(pattern);
        }
        for (const id of indicatorIds) chunk += sep() + JSON.stringify(indicatesRelationship(id, pattern.id as string, CATALOG_EPOCH));
      }
      yield chunk;
    }
    yield ']}';
  }

  /** One MISP event holding every exported indicator as a `to_ids` attribute. */
  async function* misp(orgId: string, q: ExportQuery): AsyncGenerator<string> {
    const org = { name: await organizationName(db, orgId) };
    const now = new Date();
    const uuid = uuidv5(`misp-export|${orgId}|${now.toISOString()}`);
    yield mispEventPrefix(mispEventHead({ uuid, info: `Rampart indicators export ${now.toISOString()}`, date: now, timestamp: now, orgName: org.name, orgUuid: orgId, tags: ['rampart:export'] }));
    let first = true;
    for await (const batch of walkObjects(db, orgId, allCollectionId(orgId), q, 'full')) {
      let chunk = '';
      for (const r of batch) {
        const a = mispAttribute(uuid, { type: r.type, value: r.normalizedValue, timestamp: r.modified, comment: r.labels.join('; ') });
        if (!a) continue;
        chunk += (first ? '' : ',') + JSON.stringify(a);
        first = false;
      }
      yield chunk;
    }
    yield MISP_EVENT_SUFFIX;
  }

  const writers = { txt, csv, stix, misp };

  return {
    /** Brings the served objects up to date, then streams them in the format asked. */
    async export(orgId: string, q: ExportQuery): Promise<Readable> {
      await refreshObjects(db, orgId);
      return primedStream(writers[q.format](orgId, q));
    },
  };
}

export type ExportService = ReturnType<typeof createExportService>;
