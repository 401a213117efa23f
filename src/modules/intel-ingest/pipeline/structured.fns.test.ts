import { describe, expect, it } from 'vitest';
import type { VulnerabilityRecord } from '../../intel/index.js';
import { isStructuredRecord, structuredFacts } from './structured.fns.js';

const record = (extra: Partial<VulnerabilityRecord> = {}): VulnerabilityRecord => ({
  format: 'osv', id: 'GHSA-aaaa-bbbb-cccc', aliases: ['cve-2026-1234'], withdrawn: null, severity: [], databaseSeverity: null, notes: [],
  affected: [{ ecosystem: 'npm', name: 'undici', purl: 'pkg:npm/undici', versions: ['7.0.0-rc.1'], ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '6.21.1' }, { introduced: '7.0.0' }, { fixed: '7.31.0' }] }, { type: 'ECOSYSTEM', events: [{ introduced: '8.0.0' }, { last_affected: '8.1.0' }] }] }],
  ...extra,
});
const text = 'Unbounded allocation in undici\n\nA crafted request makes the parser allocate without bound. Upgrade.\n\nIdentifiers: GHSA-aaaa-bbbb-cccc, CVE-2026-1234.\n\nPackages: npm undici.';
const facts = (v: VulnerabilityRecord, tags: string[] = []) => structuredFacts({ title: 'CVE-2026-1234 (GHSA-aaaa-bbbb-cccc): Unbounded allocation in undici', contentText: text, tags, vulnerability: v });

describe('a structured record\'s enrichment', () => {
  it('is for OSV and CSAF records only', () => {
    expect(isStructuredRecord(record())).toBe(true);
    expect(isStructuredRecord(record({ format: 'csaf' }))).toBe(true);
    expect(isStructuredRecord(record({ format: 'nvd' }))).toBe(false);
    expect(isStructuredRecord(null)).toBe(false);
  });
  it('takes the severity from the highest CVSS base score, else the database word; known exploitation raises it', () => {
    expect(facts(record({ severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H' }, { type: 'CVSS_V2', score: 'AV:N/AC:L/Au:N/C:N/I:N/A:P' }] }))).toMatchObject({ severity: 'high', cvss: 7.5 });
    expect(facts(record({ databaseSeverity: 'MODERATE' }))).toMatchObject({ severity: 'medium', cvss: null });
    expect(facts(record({ aliases: [], databaseSeverity: null }))).toMatchObject({ severity: 'none', cves: [] });
    expect(facts(record())).toMatchObject({ severity: 'low', cves: ['CVE-2026-1234'] }); // a CVE named, as the generic rule
    expect(facts(record({ databaseSeverity: 'HIGH' }), ['kev'])).toMatchObject({ severity: 'high', knownExploited: true });
  });
  it('summarizes with its own paragraphs and lists its packages with their ranges as written', () => {
    expect(facts(record())).toMatchObject({
      tldr: 'Unbounded allocation in undici',
      summary: 'Unbounded allocation in undici. A crafted request makes the parser allocate without bound. Upgrade.',
      abstract: 'Unbounded allocation in undici',
      affectedProducts: [{ vendor: 'npm', product: 'undici', versions: ['<6.21.1', '>=7.0.0 <7.31.0', '>=8.0.0 <=8.1.0', '7.0.0-rc.1'], confidence: 1 }],
    });
  });
  it('puts its summaries on one line, spaces collapsed, whatever whitespace the prose has', () => {
    const prose = 'Heap  overflow in\tzlib\n\nA crafted\nstream  writes past\u00a0the buffer.  Upgrade.\n\nPackages: npm zlib.';
    expect(structuredFacts({ title: 't', contentText: prose, tags: [], vulnerability: record() })).toMatchObject({
      tldr: 'Heap overflow in zlib',
      summary: 'Heap overflow in zlib. A crafted stream writes past the buffer. Upgrade.',
      abstract: 'Heap overflow in zlib',
    });
    expect(facts(record({ severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }] }))).toMatchObject({ severity: 'critical', cvss: 9.8 });
    expect(facts(record({ severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }] }))).toMatchObject({ severity: 'critical', cvss: 9.8 }); // the memo's answer
  });
});
