import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { entriesFromStixObjects, validateTaxiiEnvelope } from './taxii.fns.js';
import { indicatorsFromPattern, parseStixPattern } from './stix-pattern.fns.js';
import { sharedPath } from '../../../../../test/support/shared-dir.js';

/**
 * Replays the shared STIX / TAXII samples, read in place (never copied into the project), and
 * skipped when the folder is absent:
 * - stix/: OASIS STIX 2.1 example bundles (poisonivy.json has compound OR patterns and a dirty value);
 * - taxii21/: live answers of the OASIS TAXII 2.1 reference server (medallion), paged with limit=2.
 */
const FIXTURES = sharedPath('fixtures');
const STIX_DIR = path.join(FIXTURES, 'stix');
const TAXII_DIR = path.join(FIXTURES, 'taxii21');

function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
}

function jsonFiles(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => path.join(dir, f)) : [];
}

/** Every STIX-language indicator pattern anywhere in a document (medallion's data file nests them deeply). */
function stixPatterns(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) stixPatterns(x, out);
  else if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    if (o.type === 'indicator' && typeof o.pattern === 'string' && (o.pattern_type === undefined || o.pattern_type === 'stix')) {
      out.push(o.pattern);
    }
    for (const x of Object.values(o)) stixPatterns(x, out);
  }
  return out;
}

function objectsOf(file: string): unknown[] | null {
  const doc = readJson(file) as { objects?: unknown };
  return Array.isArray(doc.objects) ? doc.objects : null;
}

describe.skipIf(!fs.existsSync(STIX_DIR) && !fs.existsSync(TAXII_DIR))('STIX patterns in the shared fixtures', () => {
  it('parses every indicator pattern', () => {
    let count = 0;
    for (const file of [...jsonFiles(STIX_DIR), ...jsonFiles(TAXII_DIR)]) {
      for (const pattern of stixPatterns(readJson(file))) {
        expect(() => parseStixPattern(pattern), `${path.basename(file)}: ${pattern}`).not.toThrow();
        count += 1;
      }
    }
    expect(count).toBeGreaterThan(0);
  });
});

describe.skipIf(!fs.existsSync(STIX_DIR))('STIX example bundles', () => {
  const file = (name: string): string => path.join(STIX_DIR, name);

  it('maps every bundle without pattern errors; equality patterns yield indicators', () => {
    for (const f of jsonFiles(STIX_DIR)) {
      const objects = objectsOf(f);
      expect(objects, f).not.toBeNull();
      const entries = entriesFromStixObjects(objects!, { publisher: 'fixtures' });
      expect(new Set(entries.map((e) => e.externalId)).size, f).toBe(entries.length);
      for (const e of entries) {
        expect(e.title, f).not.toBe('');
        expect(e.tags, `${f} ${e.externalId}`).not.toContain('pattern-error');
        const pattern = (e.raw as { pattern?: string }).pattern;
        if (pattern && / = '/.test(pattern) && !/MATCHES/.test(pattern)) expect(e.indicators.length, pattern).toBeGreaterThan(0);
      }
    }
  });

  it('reads poisonivy.json: publisher from the identity, CVEs, compound patterns, the dirty value dropped', () => {
    if (!fs.existsSync(file('poisonivy.json'))) return;
    const entries = entriesFromStixObjects(objectsOf(file('poisonivy.json'))!, { publisher: 'fixtures' });
    const byType = (t: string) => entries.filter((e) => (e.raw as { type: string }).type === t);
    expect(byType('report')).toHaveLength(1);
    expect(byType('report')[0]).toMatchObject({ publisher: 'FireEye, Inc.', publishedAt: '2013-08-21T00:00:00.000Z' });
    expect(byType('vulnerability').flatMap((e) => e.indicators.map((i) => i.value))).toContain('CVE-2012-0158');
    expect(byType('indicator')).toHaveLength(25);
    const all = byType('indicator').flatMap((e) => e.indicators.map((i) => `${i.type}:${i.value}`));
    expect(all).toContain('domain:www.webserver.dynssl.com');
    expect(all).toContain('ipv4:60.10.1.115');
    expect(all).toContain('filename:CBricksDoc');
    expect(all.some((x) => x.includes('domain autuo'))).toBe(false);
  });

  it('extracts nothing from the MATCHES patterns of the email example', () => {
    if (!fs.existsSync(file('malicious-email-indicator-with-attachment.json'))) return;
    for (const pattern of stixPatterns(readJson(file('malicious-email-indicator-with-attachment.json')))) {
      expect(indicatorsFromPattern(pattern, 0.8), pattern).toEqual([]);
    }
  });
});

describe.skipIf(!fs.existsSync(TAXII_DIR))('TAXII 2.1 reference server answers', () => {
  const file = (name: string): string => path.join(TAXII_DIR, name);
  const exists = (name: string): boolean => fs.existsSync(file(name));

  it('validates every objects / manifest / versions page as an envelope', () => {
    for (const name of ['objects_all.json', 'objects_type_indicator.json', 'object_all_versions.json', 'manifest.json', 'versions.json']) {
      if (!exists(name)) continue;
      const env = validateTaxiiEnvelope(readJson(file(name)));
      expect(env.more, name).toBe(false);
      expect(Array.isArray(env.objects), name).toBe(true);
    }
  });

  it('follows the limit=2 pages: more/next, then the last page', () => {
    if (!exists('objects_page1_limit2.json') || !exists('objects_page3_limit2.json')) return;
    const p1 = validateTaxiiEnvelope(readJson(file('objects_page1_limit2.json')));
    expect(p1).toMatchObject({ more: true });
    expect(p1.next).toEqual(expect.any(String));
    expect(p1.objects).toHaveLength(2);
    expect(validateTaxiiEnvelope(readJson(file('objects_page3_limit2.json')))).toMatchObject({ more: false, next: null });
  });

  it('maps objects_all.json: indicators and malware become entries, relationship and marking do not', () => {
    if (!exists('objects_all.json')) return;
    const { objects } = validateTaxiiEnvelope(readJson(file('objects_all.json')));
    const entries = entriesFromStixObjects(objects, { collectionTitle: 'High Value Indicator Collection', publisher: 'medallion' });
    expect(entries.map((e) => e.externalId.split('--')[0]).sort()).toEqual(['indicator', 'indicator', 'malware']);
    const indicators = entries.flatMap((e) => e.indicators.map((i) => `${i.type}:${i.value}`));
    expect(indicators).toEqual(
      expect.arrayContaining(['sha256:ef537f25c895bfa782526529a9b63d97aa631564d5d789c2b765448c8635fb6c', 'url:http://x4z9arb.cn/4712']),
    );
    for (const e of entries) expect(e.publisher).toBe('medallion');
  });

  it('keeps only the latest of the versions in object_all_versions.json', () => {
    if (!exists('object_all_versions.json')) return;
    const { objects } = validateTaxiiEnvelope(readJson(file('object_all_versions.json')));
    const entries = entriesFromStixObjects(objects, {});
    expect(entries).toHaveLength(1);
    expect(entries[0]!.updatedAt).toBe('2017-01-27T13:49:53.935Z');
    expect(entries[0]!.indicators.map((i) => i.value)).toEqual(['http://x4z9arb.cn/4712']);
  });

  it('refuses the error bodies as envelopes', () => {
    for (const name of ['error_403.json', 'error_404.json']) {
      if (exists(name)) expect(() => validateTaxiiEnvelope(readJson(file(name))), name).toThrow(/answered with an error/);
    }
  });
});
