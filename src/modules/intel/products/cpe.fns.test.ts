import { describe, expect, it } from 'vitest';
import { cpeCase, findingsFromConfigurations, findingsFromCve5Affected, parseCpe, rangeString } from './cpe.fns.js';
import { parseVersionList, parseVersionsBefore } from './versions.fns.js';

describe('parseCpe', () => {
  it.each([
    ['cpe:2.3:o:fortinet:fortios:7.0.12:*:*:*:*:*:*:*', { part: 'o', vendor: 'fortinet', product: 'fortios', version: '7.0.12', update: '' }],
    ['cpe:2.3:a:microsoft:exchange_server:2019:cumulative_update_13:*:*:*:*:*:*', { part: 'a', vendor: 'microsoft', product: 'exchange_server', version: '2019', update: 'cumulative_update_13' }],
    ['cpe:2.3:o:paloaltonetworks:pan-os:*:*:*:*:*:*:*:*', { part: 'o', vendor: 'paloaltonetworks', product: 'pan-os', version: '', update: '' }],
    ['cpe:2.3:a:foo\\:bar:baz\\.qux:1.0:-:*:*:*:*:*:*', { part: 'a', vendor: 'foo:bar', product: 'baz.qux', version: '1.0', update: '' }],
    ['cpe:2.3:a:Apache:Log4j:2.14.1', { part: 'a', vendor: 'apache', product: 'log4j', version: '2.14.1', update: '' }],
    ['cpe:/a:progress:moveit_transfer:2023.0.1', { part: 'a', vendor: 'progress', product: 'moveit_transfer', version: '2023.0.1', update: '' }],
    ['cpe:/o:juniper:junos:21.2:r1', { part: 'o', vendor: 'juniper', product: 'junos', version: '21.2', update: 'r1' }],
    ['cpe:/a:at%26t:some%20app:1.0', { part: 'a', vendor: 'at&t', product: 'some app', version: '1.0', update: '' }],
    ['cpe:/a:vendor:product::sp1:~~pro~~~', { part: 'a', vendor: 'vendor', product: 'product', version: '', update: 'sp1' }],
  ])('%s', (cpe, expected) => {
    expect(parseCpe(cpe)).toEqual(expected);
  });

  it.each(['', 'fortios 7.0', 'cpe:2.3:x:a:b:1', 'cpe:2.3:a:*:*:1.0', 'cpe:/'])('rejects %j', (cpe) => {
    expect(parseCpe(cpe)).toBeNull();
  });
});

describe('rangeString / cpeCase', () => {
  it.each([
    [{ startIncluding: '7.0.0', endExcluding: '7.0.13' }, '>=7.0.0 <7.0.13'],
    [{ startExcluding: '1.0', endIncluding: '1.4' }, '>1.0 <=1.4'],
    [{ endExcluding: '2.3.1' }, '<2.3.1'],
    [{}, ''],
  ])('rangeString(%j)', (bounds, expected) => {
    expect(rangeString(bounds)).toBe(expected);
  });

  it.each([
    ['Palo Alto Networks', 'palo_alto_networks'],
    ['  FortiOS ', 'fortios'],
    ['Backup & Replication', 'backup_&_replication'],
    ['PAN-OS®', 'pan-os'],
  ])('cpeCase(%j)', (name, expected) => {
    expect(cpeCase(name)).toBe(expected);
  });
});

describe('findingsFromConfigurations', () => {
  it('reads NVD API 2.0 configurations, vulnerable matches only', () => {
    const configurations = [
      {
        operator: 'AND',
        nodes: [
          {
            operator: 'OR',
            negate: false,
            cpeMatch: [
              { vulnerable: true, criteria: 'cpe:2.3:o:fortinet:fortios:*:*:*:*:*:*:*:*', versionStartIncluding: '7.0.0', versionEndExcluding: '7.0.14' },
              { vulnerable: true, criteria: 'cpe:2.3:o:fortinet:fortios:6.4.15:*:*:*:*:*:*:*' },
            ],
          },
          { operator: 'OR', cpeMatch: [{ vulnerable: false, criteria: 'cpe:2.3:h:fortinet:fortigate-60f:-:*:*:*:*:*:*:*' }] },
        ],
      },
    ];
    expect(findingsFromConfigurations(configurations)).toEqual([
      { vendor: 'fortinet', product: 'fortios', version: '>=7.0.0 <7.0.14' },
      { vendor: 'fortinet', product: 'fortios', version: '6.4.15' },
    ]);
  });

  it('reads NVD 1.1 feed configurations with children', () => {
    const configurations = {
      CVE_data_version: '4.0',
      nodes: [
        {
          operator: 'AND',
          children: [{ operator: 'OR', cpe_match: [{ vulnerable: true, cpe23Uri: 'cpe:2.3:a:apache:log4j:*:*:*:*:*:*:*:*', versionStartIncluding: '2.0.1', versionEndExcluding: '2.12.2' }] }],
          cpe_match: [],
        },
      ],
    };
    expect(findingsFromConfigurations(configurations)).toEqual([{ vendor: 'apache', product: 'log4j', version: '>=2.0.1 <2.12.2' }]);
  });

  it.each([undefined, null, 'x', 42, [{ nodes: 'no' }]])('tolerates %j', (value) => {
    expect(findingsFromConfigurations(value)).toEqual([]);
  });
});

describe('findingsFromCve5Affected', () => {
  it('reads affected versions, ranges and cpes', () => {
    const affected = [
      {
        vendor: 'Ivanti',
        product: 'Connect Secure',
        defaultStatus: 'unaffected',
        cpes: ['cpe:2.3:a:ivanti:connect_secure:22.7:r2.4:*:*:*:*:*:*'],
        versions: [
          { version: '9.0', status: 'affected', lessThan: '9.1R18', versionType: 'custom' },
          { version: '0', status: 'affected', lessThanOrEqual: '22.7R2.3', versionType: 'custom' },
          { version: '22.7R2.5', status: 'unaffected' },
          { version: '22.1R6', status: 'affected' },
        ],
      },
      { vendor: 'n/a', product: 'n/a', versions: [{ version: 'n/a', status: 'affected' }] },
      { vendor: 'Acme', product: 'Widget', defaultStatus: 'affected' },
    ];
    expect(findingsFromCve5Affected(affected)).toEqual([
      { vendor: 'ivanti', product: 'connect_secure', version: '22.7 r2.4' },
      { vendor: 'ivanti', product: 'connect_secure', version: '>=9.0 <9.1R18' },
      { vendor: 'ivanti', product: 'connect_secure', version: '<=22.7R2.3' },
      { vendor: 'ivanti', product: 'connect_secure', version: '22.1R6' },
      { vendor: 'acme', product: 'widget', version: '' },
    ]);
  });

  it('accepts a whole CVE 5 record', () => {
    const record = { containers: { cna: { affected: [{ vendor: 'Fortinet', product: 'FortiOS', versions: [{ version: '7.4.0', status: 'affected', lessThanOrEqual: '7.4.2' }] }] } } };
    expect(findingsFromCve5Affected(record)).toEqual([{ vendor: 'fortinet', product: 'fortios', version: '>=7.4.0 <=7.4.2' }]);
  });
});

describe('parseVersionList', () => {
  it.each<[string, string[]]>([
    [' 7.0.0 to 7.0.12', ['>=7.0.0 <=7.0.12']],
    [' versions 1.2 through 1.4.', ['>=1.2 <=1.4']],
    [' from 3.0 until 3.2', ['>=3.0 <=3.2']],
    [' 1.2-1.4', ['>=1.2 <=1.4']],
    [' before 2.3.1', ['<2.3.1']],
    [' prior to version 7.2', ['<7.2']],
    [' versions released before 2021.0.6', ['<2021.0.6']],
    [' up to and including 4.1', ['<=4.1']],
    [' 2.3 and earlier', ['<=2.3']],
    [' 2.3 and later', ['>=2.3']],
    [' 22.7R2.1+', ['>=22.7R2.1']],
    [' 7.x', ['7.x']],
    [' 10.2, 11.0 and 11.1', ['10.2', '11.0', '11.1']],
    [' (9.x, 22.x)', ['9.x', '22.x']],
    [' 12.2(55)SE and later', ['>=12.2(55)SE']],
    [' Software 17.3', ['17.3']],
    [' firmware versions before V5.21(AAZF.14)C0', ['<5.21']],
    [' versions 2.0-beta9 through 2.15.0', ['>=2.0-beta9 <=2.15.0']],
    [' 7.4.0 through 7.4.2, 7.2.0 through 7.2.6, and 7.0 all versions', ['>=7.4.0 <=7.4.2', '>=7.2.0 <=7.2.6', '7.0']],
    [' 7.2.5 to address it', ['7.2.5']],
    [' 1.4, upgrade to 1.5', ['1.4']],
    [' CVE-2024-1234', []],
    [' is vulnerable', []],
  ])('%j', (text, expected) => {
    expect(parseVersionList(text, 0).versions).toEqual(expected);
  });

  it('reports where the expression ends', () => {
    const text = 'FortiOS 7.0.0 to 7.0.12 is affected.';
    expect(text.slice(0, parseVersionList(text, 7).end)).toBe('FortiOS 7.0.0 to 7.0.12');
  });

  it('parseVersionsBefore reads "versions … of Product"', () => {
    const text = 'This affects versions 7.0.0 through 7.0.12 of Fortinet FortiOS.';
    expect(parseVersionsBefore(text, 0, text.indexOf('Fortinet'))?.versions).toEqual(['>=7.0.0 <=7.0.12']);
    expect(parseVersionsBefore('Users of FortiOS', 0, 9)).toBeNull();
  });
});
