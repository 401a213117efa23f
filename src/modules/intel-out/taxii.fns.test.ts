import { describe, expect, it } from 'vitest';
import { acceptsTaxii21, decodeNext, encodeNext, matchFilters } from './taxii.fns.js';

describe('TAXII functions', () => {
  it('accepts TAXII 2.1 (or unversioned TAXII) and nothing else', () => {
    for (const ok of ['application/taxii+json;version=2.1', 'application/taxii+json', 'application/json, application/taxii+json; version=2.1', 'APPLICATION/TAXII+JSON;VERSION=2.1']) expect(acceptsTaxii21(ok)).toBe(true);
    for (const no of [undefined, '', '*/*', 'application/json', 'application/taxii+json;version=2.0', 'application/taxii+json;version=2.1;q=0', 'application/stix+json;version=2.1']) expect(acceptsTaxii21(no)).toBe(false);
  });

  it('round-trips the next token and refuses anything else', () => {
    const p = { at: '2026-11-25T10:00:00.123Z', seq: '42' };
    expect(decodeNext(encodeNext(p))).toEqual(p);
    for (const bad of ['', 'garbage', Buffer.from('2026-11-25|1').toString('base64url'), Buffer.from('2026-11-25T10:00:00.123Z|-1').toString('base64url')]) {
      expect(() => decodeNext(bad)).toThrow('Validation failed');
    }
  });

  it('reads match[] filters: type and spec_version rule out everything but 2.1 indicators', () => {
    expect(matchFilters({})).toEqual({ possible: true });
    expect(matchFilters({ 'match[type]': 'malware,report' })).toEqual({ possible: false });
    expect(matchFilters({ 'match[spec_version]': '2.0' })).toEqual({ possible: false });
    expect(matchFilters({ 'match[id]': 'malware--6f7b7c3e-6a6e-4f0e-8f0e-0e0e0e0e0e0e' })).toEqual({ possible: false });
    expect(matchFilters({ 'match[id]': 'indicator--6F7B7C3E-6A6E-4F0E-8F0E-0E0E0E0E0E0E, x' })).toEqual({ possible: true, stixIds: ['6f7b7c3e-6a6e-4f0e-8f0e-0e0e0e0e0e0e'] });
    expect(matchFilters({ 'match[version]': 'last,2026-01-01T00:00:00Z' })).toEqual({ possible: true });
    expect(matchFilters({ 'match[version]': '2026-01-01T00:00:00.000Z' }).versions).toEqual([new Date('2026-01-01T00:00:00.000Z')]);
    expect(() => matchFilters({ 'match[version]': 'newest' })).toThrow('Validation failed');
  });
});
