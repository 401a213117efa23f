import { describe, expect, it } from 'vitest';
import { ConnectorParseError } from '../connector.js';
import { entriesFromStixObjects, validateTaxiiEnvelope } from './taxii.fns.js';

const IDENTITY = {
  type: 'identity',
  spec_version: '2.1',
  id: 'identity--11111111-1111-4111-8111-111111111111',
  created: '2024-01-01T00:00:00.000Z',
  modified: '2024-01-01T00:00:00.000Z',
  name: 'Example CERT',
  identity_class: 'organization',
};

function indicator(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'indicator',
    spec_version: '2.1',
    id: 'indicator--22222222-2222-4222-8222-222222222222',
    created: '2024-02-01T10:00:00.000Z',
    modified: '2024-02-02T10:00:00.123456Z',
    name: 'C2 address',
    description: 'Seen   beaconing\r\n\r\n\r\n  every 60s.',
    pattern: "[ipv4-addr:value = '198.51.100.7'] OR [domain-name:value = 'c2.example']",
    pattern_type: 'stix',
    valid_from: '2024-02-01T10:00:00Z',
    confidence: 60,
    labels: ['c2', ' ', 'apt-x'],
    indicator_types: ['malicious-activity'],
    created_by_ref: IDENTITY.id,
    external_references: [
      { source_name: 'internal', external_id: 'X-1' },
      { source_name: 'blog', url: 'https://blog.example/c2' },
      { source_name: 'mirror', url: 'https://mirror.example/c2' },
    ],
    ...extra,
  };
}

const ctx = { collectionTitle: 'Indicators', publisher: 'My TAXII' };

describe('entriesFromStixObjects', () => {
  it('maps an indicator: ids, dates, text, links, publisher, tags and pattern indicators', () => {
    const [entry, ...rest] = entriesFromStixObjects([IDENTITY, indicator()], ctx);
    expect(rest).toEqual([]);
    expect(entry).toEqual({
      externalId: 'indicator--22222222-2222-4222-8222-222222222222',
      title: 'C2 address',
      url: 'https://blog.example/c2',
      publisher: 'Example CERT',
      publishedAt: '2024-02-01T10:00:00.000Z',
      updatedAt: '2024-02-02T10:00:00.123Z',
      language: null,
      contentText: 'Seen beaconing\n\nevery 60s.',
      contentHtml: null,
      indicators: [
        { type: 'ipv4', value: '198.51.100.7', confidence: 0.6, origin: 'stix:pattern', context: indicator().pattern },
        { type: 'domain', value: 'c2.example', confidence: 0.6, origin: 'stix:pattern', context: indicator().pattern },
      ],
      references: ['https://blog.example/c2', 'https://mirror.example/c2'],
      tags: ['c2', 'apt-x', 'malicious-activity', 'taxii-collection:Indicators'],
      raw: indicator(),
    });
  });

  it('falls back to the context publisher, 0.8 confidence and type + id as title', () => {
    const [entry] = entriesFromStixObjects(
      [indicator({ created_by_ref: 'identity--unknown', confidence: undefined, name: undefined, external_references: undefined })],
      { publisher: 'My TAXII' },
    );
    expect(entry!.publisher).toBe('My TAXII');
    expect(entry!.title).toBe('indicator indicator--22222222-2222-4222-8222-222222222222');
    expect(entry!.url).toBeNull();
    expect(entry!.references).toEqual([]);
    expect(entry!.indicators.map((i) => i.confidence)).toEqual([0.8, 0.8]);
    expect(entry!.tags).not.toContain('taxii-collection:Indicators');
    expect(entriesFromStixObjects([indicator({ created_by_ref: undefined })], {})[0]!.publisher).toBeNull();
  });

  it('parses patterns when pattern_type is stix or missing, and skips other pattern languages', () => {
    const noType = entriesFromStixObjects([indicator({ pattern_type: undefined })], ctx)[0]!;
    expect(noType.indicators).toHaveLength(2);
    const yara = entriesFromStixObjects([indicator({ pattern_type: 'yara', pattern: 'rule x { condition: true }' })], ctx)[0]!;
    expect(yara.indicators).toEqual([]);
    expect(yara.tags).not.toContain('pattern-error');
  });

  it('keeps an indicator with an invalid or missing pattern, without indicators, tagged pattern-error', () => {
    for (const pattern of ["[ipv4-addr:value = '1.2.3.4'", '', 42, undefined]) {
      const entries = entriesFromStixObjects([indicator({ pattern })], ctx);
      expect(entries, String(pattern)).toHaveLength(1);
      expect(entries[0]!.indicators).toEqual([]);
      expect(entries[0]!.tags).toContain('pattern-error');
    }
  });

  it('maps a report with its published date and language', () => {
    const report = {
      type: 'report',
      id: 'report--33333333-3333-4333-8333-333333333333',
      created: '2024-03-01T00:00:00Z',
      modified: '2024-03-05T00:00:00Z',
      published: '2024-03-02T08:30:00Z',
      name: 'Campaign write-up',
      description: 'Details.',
      lang: 'de',
      report_types: ['threat-report'],
      object_refs: ['indicator--22222222-2222-4222-8222-222222222222'],
    };
    const [entry] = entriesFromStixObjects([report], ctx);
    expect(entry).toMatchObject({
      externalId: report.id,
      title: 'Campaign write-up',
      publishedAt: '2024-03-02T08:30:00.000Z',
      updatedAt: '2024-03-05T00:00:00.000Z',
      language: 'de',
      contentText: 'Details.',
      indicators: [],
      tags: ['threat-report', 'taxii-collection:Indicators'],
    });
    expect(entriesFromStixObjects([{ ...report, published: 'not a date' }], ctx)[0]!.publishedAt).toBe('2024-03-01T00:00:00.000Z');
  });

  it('maps a vulnerability to a cve indicator, naming it by the CVE when it has no name', () => {
    const vuln = {
      type: 'vulnerability',
      id: 'vulnerability--44444444-4444-4444-8444-444444444444',
      created: '2024-01-01T00:00:00Z',
      modified: '2024-01-01T00:00:00Z',
      confidence: 90,
      external_references: [{ source_name: 'cve', external_id: 'cve-2021-44228', url: 'https://nvd.nist.gov/vuln/detail/CVE-2021-44228' }],
    };
    const [entry] = entriesFromStixObjects([vuln], {});
    expect(entry!.title).toBe('CVE-2021-44228');
    expect(entry!.url).toBe('https://nvd.nist.gov/vuln/detail/CVE-2021-44228');
    expect(entry!.indicators).toEqual([{ type: 'cve', value: 'CVE-2021-44228', confidence: 0.9, origin: 'stix:external_references' }]);
    const named = entriesFromStixObjects([{ ...vuln, name: 'Log4Shell' }], {})[0]!;
    expect(named.title).toBe('Log4Shell');
    expect(named.indicators.map((i) => i.value)).toEqual(['CVE-2021-44228']);
    // Only the name says which CVE it is.
    const byName = entriesFromStixObjects([{ ...vuln, name: 'CVE-2012-0158', external_references: [] }], {})[0]!;
    expect(byName.indicators.map((i) => i.value)).toEqual(['CVE-2012-0158']);
    const none = entriesFromStixObjects([{ ...vuln, external_references: [{ source_name: 'vendor', external_id: 'V-1' }] }], {})[0]!;
    expect(none.indicators).toEqual([]);
    expect(none.title).toBe(`vulnerability ${vuln.id}`);
  });

  it('tags ATT&CK ids from mitre-attack references', () => {
    const ap = {
      type: 'attack-pattern',
      id: 'attack-pattern--55555555-5555-4555-8555-555555555555',
      created: '2024-01-01T00:00:00Z',
      modified: '2024-01-01T00:00:00Z',
      name: 'Spearphishing Attachment',
      external_references: [
        { source_name: 'mitre-attack', external_id: 'T1566.001', url: 'https://attack.mitre.org/techniques/T1566/001' },
        { source_name: 'capec', external_id: 'CAPEC-163' },
      ],
    };
    const set = {
      type: 'intrusion-set',
      id: 'intrusion-set--66666666-6666-4666-8666-666666666666',
      name: 'APT28',
      external_references: [{ source_name: 'mitre-attack', external_id: 'G0007' }],
    };
    const malware = { type: 'malware', id: 'malware--77777777-7777-4777-8777-777777777777', name: 'X-Agent', is_family: true, malware_types: ['backdoor'] };
    const entries = entriesFromStixObjects([ap, set, malware], {});
    expect(entries.map((e) => e.tags)).toEqual([['attack:T1566.001'], ['attack:G0007'], ['backdoor']]);
    expect(entries[0]!.url).toBe('https://attack.mitre.org/techniques/T1566/001');
    expect(entries[1]!.publishedAt).toBeNull();
  });

  it('skips context-only types and objects without id/type, and never throws on junk', () => {
    const entries = entriesFromStixObjects(
      [
        null,
        42,
        'indicator',
        [],
        { type: 'indicator' },
        { id: 'indicator--x' },
        { type: 'relationship', id: 'relationship--1', relationship_type: 'indicates', source_ref: 'a', target_ref: 'b' },
        { type: 'marking-definition', id: 'marking-definition--1', definition_type: 'tlp', definition: { tlp: 'green' } },
        { type: 'campaign', id: 'campaign--1', name: 'c' },
        IDENTITY,
        { type: 'malware', id: 'malware--8', name: { not: 'a string' }, labels: 'not-a-list', external_references: [null, 'x', { url: 42 }] },
      ],
      {},
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ externalId: 'malware--8', title: 'malware malware--8', tags: [], url: null, references: [] });
  });

  it('ignores non-http reference URLs', () => {
    const [entry] = entriesFromStixObjects(
      [indicator({ external_references: [{ source_name: 'x', url: 'javascript:alert(1)' }, { source_name: 'y', url: 'https://ok.example/' }] })],
      {},
    );
    expect(entry!.url).toBe('https://ok.example/');
    expect(entry!.references).toEqual(['https://ok.example/']);
  });

  it('keeps only the latest version of an object, at the position of its first version', () => {
    const v1 = indicator({ modified: '2024-01-01T00:00:00Z', name: 'v1' });
    const v3 = indicator({ modified: '2024-03-01T00:00:00Z', name: 'v3' });
    const v2 = indicator({ modified: '2024-02-01T00:00:00Z', name: 'v2' });
    const other = { type: 'malware', id: 'malware--9', name: 'M' };
    expect(entriesFromStixObjects([v1, other, v3, v2], {}).map((e) => e.title)).toEqual(['v3', 'M']);
  });

  it('keeps a revoked object but asserts no indicators for it', () => {
    const [entry] = entriesFromStixObjects([indicator({ revoked: true })], {});
    expect(entry!.indicators).toEqual([]);
    expect(entry!.tags).toContain('revoked');
  });

  it('rejects out-of-range confidence in favour of the default', () => {
    const [entry] = entriesFromStixObjects([indicator({ confidence: 250 })], {});
    expect(entry!.indicators[0]!.confidence).toBe(0.8);
  });
});

describe('validateTaxiiEnvelope', () => {
  it('accepts a page with objects, more and next', () => {
    const objects = [{ type: 'indicator', id: 'indicator--1' }];
    expect(validateTaxiiEnvelope({ more: true, next: 'abc', objects })).toEqual({ objects, more: true, next: 'abc' });
    expect(validateTaxiiEnvelope({ objects })).toEqual({ objects, more: false, next: null });
  });

  it('accepts the empty {} page of an empty collection', () => {
    expect(validateTaxiiEnvelope({})).toEqual({ objects: [], more: false, next: null });
    expect(validateTaxiiEnvelope({ more: false })).toEqual({ objects: [], more: false, next: null });
  });

  it('reads only a boolean true as more, and a non-empty string (or number) as next', () => {
    expect(validateTaxiiEnvelope({ objects: [], more: 'yes', next: '' })).toEqual({ objects: [], more: false, next: null });
    expect(validateTaxiiEnvelope({ objects: [], more: true, next: 17 })).toEqual({ objects: [], more: true, next: '17' });
  });

  it('throws ConnectorParseError for anything else', () => {
    for (const bad of [null, undefined, 'text', 42, [], [{ type: 'indicator' }], { objects: {} }, { objects: 'x' }]) {
      expect(() => validateTaxiiEnvelope(bad), JSON.stringify(bad)).toThrow(ConnectorParseError);
    }
    expect(() => validateTaxiiEnvelope({ objects: {} })).toThrow(/"objects" is an empty object, expected a list/);
    expect(() => validateTaxiiEnvelope([])).toThrow(/sent an array where an envelope/);
  });

  it('refuses a TAXII error message instead of reading it as an empty page', () => {
    expect(() => validateTaxiiEnvelope({ title: 'Collection not found', http_status: '404', description: 'No such collection' })).toThrow(
      /TAXII server answered with an error \(404\): Collection not found: No such collection/,
    );
  });
});
