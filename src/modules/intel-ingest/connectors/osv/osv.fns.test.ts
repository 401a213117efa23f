import { describe, expect, it } from 'vitest';
import { zipSync, strToU8 } from 'fflate';
import { entryFromOsv, parseOsvDocument, vulnerabilityOf } from './osv.fns.js';

const rec = (id: string, extra: Record<string, unknown> = {}) => ({ id, modified: '2026-01-01T00:00:00Z', affected: [], ...extra });

describe('OSV documents', () => {
  it('reads a zip (as all.zip), a JSON array, one record and NDJSON', () => {
    const zip = Buffer.from(zipSync({ 'B.json': strToU8(JSON.stringify(rec('B'))), 'A.json': strToU8(JSON.stringify(rec('A'))), 'README.txt': strToU8('x') }));
    expect(parseOsvDocument(zip).map((r) => (r as { id: string }).id)).toEqual(['B', 'A']); // the zip's order; the connector sorts by modified
    expect(parseOsvDocument(Buffer.from(JSON.stringify([rec('A')])))).toHaveLength(1);
    expect(parseOsvDocument(Buffer.from(JSON.stringify(rec('A'))))).toHaveLength(1);
    expect(parseOsvDocument(Buffer.from(`${JSON.stringify(rec('A'))}\n\n${JSON.stringify(rec('B'))}\n`))).toHaveLength(2);
  });
  it('reads a zip of many small records', () => {
    // fflate's Unzip (the reader before zip.fns.ts) recursed twice per member of the bytes it was
    // given: 20,000 tiny members in one chunk overflowed the stack ("Maximum call stack size exceeded").
    const files = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`R${i}.json`, strToU8(JSON.stringify({ id: `R${i}` }))]));
    const records = parseOsvDocument(Buffer.from(zipSync(files, { level: 0 })));
    expect(records).toHaveLength(20_000);
    expect(records.at(-1)).toEqual({ id: 'R19999' });
  });
  it('says what is wrong with a document it cannot read', () => {
    expect(() => parseOsvDocument(Buffer.from('<html>'))).toThrow('neither a zip, a JSON array, a record nor NDJSON');
    expect(() => parseOsvDocument(Buffer.from('{"id":"A"}\n{oops'))).toThrow('invalid JSON in line 2');
    expect(() => parseOsvDocument(Buffer.from('[1,'))).toThrow('invalid JSON in the document');
    const zip = Buffer.from(zipSync({ 'A.json': strToU8('{"id":') }));
    expect(() => parseOsvDocument(zip)).toThrow('invalid JSON in A.json');
    expect(() => parseOsvDocument(Buffer.concat([zip.subarray(0, 40), Buffer.alloc(20, 0xff)]))).toThrow('The OSV zip could not be read: no end of central directory (a truncated download?)');
  });
  it('keeps SEMVER/ECOSYSTEM ranges and versions, notes GIT ranges, strips a purl version, keys the title by the CVE', () => {
    const r = rec('GHSA-x', {
      aliases: ['cve-2026-1234', 'PYSEC-2026-1'], summary: 'Bug',
      affected: [{ package: { ecosystem: 'Go', name: 'example.com/m', purl: 'pkg:golang/example.com/m@v1.0.0' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: 'v1.2.3' }] }, { type: 'GIT', repo: 'https://example.com/m', events: [{ introduced: '0' }] }], versions: ['v1.0.0'] }],
    });
    expect(vulnerabilityOf(r)).toMatchObject({ id: 'GHSA-x', aliases: ['CVE-2026-1234', 'PYSEC-2026-1'], affected: [{ ecosystem: 'Go', name: 'example.com/m', purl: 'pkg:golang/example.com/m', ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.2.3' }] }], versions: ['v1.0.0'] }], notes: ['A GIT range of Go example.com/m (https://example.com/m) is out of scope: commits are not versions.'] });
    const e = entryFromOsv(r, 'OSV')!;
    expect(e.title).toBe('CVE-2026-1234 (GHSA-x): Bug');
    expect(e.indicators).toEqual([{ type: 'cve', value: 'CVE-2026-1234', confidence: 1, origin: 'osv:GHSA-x' }]);
    expect(entryFromOsv({ summary: 'no id' }, 'OSV')).toBeNull();
  });
});
