import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NotTheFormat, parseCycloneDx, parseInventoryCsv, parseOsquery } from './importers.fns.js';
import { keysMatch, productKey, softwareKey } from './inventory.fns.js';

const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../../test/fixtures/hunt', name), 'utf8'));

describe('inventory importers', () => {
  it('reads a CycloneDX SBOM, nested components, CPE and purl included', () => {
    const { assets, errors } = parseCycloneDx(fixture('payments-api.cdx.json'), undefined);
    expect(errors).toEqual([]);
    expect(assets).toHaveLength(1);
    expect(assets[0]!.identifier).toBe('payments-api');
    expect(assets[0]!.kind).toBe('application');
    const names = assets[0]!.software.map((s) => `${s.product}@${s.version}`);
    expect(names).toEqual(['log4j-core@2.14.1', 'spring-webmvc@5.3.17', 'jackson-databind@2.13.4.2', 'jackson-annotations@2.13.4', 'traverse@7.22.5']);
    expect(softwareKey(assets[0]!.software[0]!)).toBe('log4j');
    expect(assets[0]!.software[4]!.vendor).toBe('@babel');
  });

  it('rejects a document that is not CycloneDX', () => {
    expect(() => parseCycloneDx({ spdxVersion: 'SPDX-2.3' }, 'x')).toThrow(NotTheFormat);
    expect(() => parseCycloneDx({ spdxVersion: 'SPDX-2.3' }, 'x')).toThrow(/CycloneDX/);
  });

  it('reads osquery deb_packages rows with upstream versions, reporting the bad row', () => {
    const { assets, errors } = parseOsquery(fixture('bastion-01.deb_packages.json'), 'bastion-01');
    expect(errors).toEqual([{ row: 5, message: 'row has no name' }]);
    expect(assets[0]!.platform).toBe('linux');
    expect(assets[0]!.software.find((s) => s.product === 'openssh-server')!.version).toBe('8.9p1');
    expect(assets[0]!.software.find((s) => s.product === 'xz-utils')!.version).toBe('5.6.0');
  });

  it('reads an osquery programs snapshot log with its host identifier', () => {
    const { assets, errors } = parseOsquery(fixture('ws-042.programs.json'), undefined);
    expect(errors).toEqual([]);
    expect(assets[0]!.identifier).toBe('WS-042.corp.example');
    expect(assets[0]!.platform).toBe('windows');
    expect(assets[0]!.software[1]).toEqual({ vendor: 'Google LLC', product: 'Google Chrome', version: '119.0.6045.106' });
  });

  it('reads the CSV, grouping rows by identifier and naming bad rows', () => {
    const csv = 'identifier,kind,platform,internetFacing,vendor,product,version\nvpn-1,appliance,network,true,Fortinet,FortiOS,7.0.12\nvpn-1,appliance,network,true,Fortinet,"FortiOS SSL-VPN",7.0.12\n,host,linux,false,a,b,1\nweb-1,host,linux,maybe,nginx,nginx,1.25.3\n';
    const { assets, errors } = parseInventoryCsv(csv);
    expect(assets).toHaveLength(1);
    expect(assets[0]!.software).toHaveLength(2);
    expect(assets[0]!.internetFacing).toBe(true);
    expect(errors.map((e) => e.row)).toEqual([4, 5]);
    expect(() => parseInventoryCsv('a,b\n1,2')).toThrow(/Missing column/);
  });

  it('matches product keys across naming styles', () => {
    expect(productKey('Apache', 'Apache Log4j')).toBe('log4j');
    expect(keysMatch('log4j', 'log4j core')).toBe(true);
    expect(keysMatch('fortios', 'fortios ssl vpn')).toBe(true);
    expect(keysMatch('go', 'go ethereum')).toBe(false);
  });
});
