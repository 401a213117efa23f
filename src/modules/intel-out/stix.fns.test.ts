import { describe, expect, it } from 'vitest';
import { allCollectionId, indicatorObject, indicatorUuid, stixPattern, STIX_TYPES, uuidv5 } from './stix.fns.js';
import { indicatorsFromPattern } from '../intel-ingest/connectors/taxii/stix-pattern.fns.js';

describe('STIX functions', () => {
  it('derives RFC 9562 version-5 UUIDs (the RFC\'s DNS example)', () => {
    expect(uuidv5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('gives an indicator one id per organization, type and value', () => {
    const a = indicatorUuid('org-1', 'domain', 'evil.example');
    expect(indicatorUuid('org-1', 'domain', 'evil.example')).toBe(a);
    expect(indicatorUuid('org-2', 'domain', 'evil.example')).not.toBe(a);
    expect(indicatorUuid('org-1', 'url', 'evil.example')).not.toBe(a);
    expect(allCollectionId('org-1')).not.toBe(allCollectionId('org-2'));
  });

  it('writes patterns that Rampart\'s own STIX pattern reader maps back to the same indicator', () => {
    const cases: Array<[string, string, string]> = [
      ['ipv4', '203.0.113.7', "[ipv4-addr:value = '203.0.113.7']"],
      ['ipv6', '2001:db8::1', "[ipv6-addr:value = '2001:db8::1']"],
      ['url', "https://evil.example/it's\\here", "[url:value = 'https://evil.example/it\\'s\\\\here']"],
      ['sha256', 'ab'.repeat(32), `[file:hashes.'SHA-256' = '${'ab'.repeat(32)}']`],
      ['md5', 'd41d8cd98f00b204e9800998ecf8427e', "[file:hashes.MD5 = 'd41d8cd98f00b204e9800998ecf8427e']"],
      ['asn', 'AS64500', '[autonomous-system:number = 64500]'],
      ['registry-key', 'HKLM\\Software\\Run', "[windows-registry-key:key = 'HKLM\\\\Software\\\\Run']"],
    ];
    for (const [type, value, pattern] of cases) {
      expect(stixPattern(type, value)).toBe(pattern);
      expect(indicatorsFromPattern(pattern, 0.8).map((i) => [i.type, i.value])).toEqual([[type, type === 'asn' ? '64500' : value]]);
    }
    expect(stixPattern('cve', 'CVE-2026-1234')).toBeNull();
    expect(stixPattern('asn', 'not a number')).toBeNull();
    expect(stixPattern('cert', 'zz')).toBeNull();
    expect(STIX_TYPES.has('cve')).toBe(false);
  });

  it('builds indicators: valid_until only when later than valid_from, revoked and labels when set', () => {
    const at = new Date('2026-11-01T00:00:00.000Z');
    const base = { orgId: 'o', type: 'domain', value: 'evil.example', created: at, modified: at, validFrom: at, validUntil: at, confidence: 80.4, labels: [], revoked: false };
    const o = indicatorObject(base)!;
    expect(o).toEqual({
      type: 'indicator', spec_version: '2.1', id: `indicator--${indicatorUuid('o', 'domain', 'evil.example')}`, created: at.toISOString(), modified: at.toISOString(),
      name: 'evil.example', indicator_types: ['malicious-activity'], pattern: "[domain-name:value = 'evil.example']", pattern_type: 'stix', pattern_version: '2.1', valid_from: at.toISOString(), confidence: 80,
    });
    expect(indicatorObject({ ...base, validUntil: new Date('2026-12-01T00:00:00Z'), labels: ['CERT'], revoked: true })).toMatchObject({ valid_until: '2026-12-01T00:00:00.000Z', labels: ['CERT'], revoked: true });
    expect(indicatorObject({ ...base, type: 'other' })).toBeNull();
  });
});
