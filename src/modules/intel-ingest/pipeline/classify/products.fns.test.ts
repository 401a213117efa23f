import { describe, expect, it } from 'vitest';
import { productId, vendorId } from './product-dictionary.js';
import { affectedProductsFrom, type AffectedProduct } from './products.fns.js';

function fromText(text: string): AffectedProduct[] {
  const out = affectedProductsFrom({ text, cpes: [] });
  expectExact(text, out);
  return out;
}

function expectExact(text: string, products: readonly AffectedProduct[]): void {
  for (const p of products) if (p.passage) expect(text.slice(p.passage.charSpan.start, p.passage.charSpan.end)).toBe(p.passage.text);
}

const brief = (ps: readonly AffectedProduct[]) => ps.map((p) => [p.vendor, p.product, p.versions, p.confidence]);

describe('affectedProductsFrom: text', () => {
  it.each<[string, string, Array<[string, string, string[], number]>]>([
    ['vendor + product + range', 'The flaw affects Fortinet FortiOS 7.0.0 to 7.0.12.', [['fortinet', 'fortios', ['>=7.0.0 <=7.0.12'], 0.75]]],
    ['versions … through …', 'Acme uses Palo Alto Networks PAN-OS versions 10.2 through 10.2.9.', [['paloaltonetworks', 'pan-os', ['>=10.2 <=10.2.9'], 0.75]]],
    ['standalone product before X', 'FortiProxy before 7.4.3 is vulnerable.', [['fortinet', 'fortiproxy', ['<7.4.3'], 0.7]]],
    ['wildcard versions in parentheses', 'Ivanti Connect Secure (9.x, 22.x) was exploited.', [['ivanti', 'connect_secure', ['9.x', '22.x'], 0.75]]],
    ['version list', 'Microsoft Exchange Server 2016 and 2019 need the update.', [['microsoft', 'exchange_server', ['2016', '2019'], 0.75]]],
    ['versions … of Vendor Product', 'It affects versions 2.0-beta9 through 2.15.0 of Apache Log4j.', [['apache', 'log4j', ['>=2.0-beta9 <=2.15.0'], 0.75]]],
    ['versioned product without vendor', 'Update Chrome 120.0.6099.109 now.', [['google', 'chrome', ['120.0.6099.109'], 0.7]]],
    ['vendor + unlisted product + versions', 'Zyxel NAS326 firmware versions before V5.21(AAZF.14)C0 are affected.', [['zyxel', 'nas326', ['<5.21'], 0.5]]],
    ['vendor + product, no version, vulnerability sentence', 'A vulnerability in Citrix NetScaler ADC was disclosed.', [['citrix', 'netscaler_application_delivery_controller', [], 0.55]]],
    ['standalone product, no version, vulnerability sentence', 'MOVEit Transfer was compromised by Cl0p.', [['progress', 'moveit_transfer', [], 0.5]]],
    ['standalone product outside a vulnerability sentence', 'Our team likes FortiGate dashboards.', []],
    ['versioned product needs a version', 'Windows users should patch.', []],
    ['vendor-only product needs the vendor', 'The Gateway 13.1 release.', []],
    ['vendor alone is not a product', 'Microsoft said it fixed the vulnerability.', []],
    ['vendor and product names are one word (GitLab)', 'A GitLab flaw lets attackers take over accounts.', [['gitlab', 'gitlab', [], 0.55]]],
    ['Linux kernel', 'The Linux kernel 6.1 through 6.6 is affected.', [['linux', 'linux_kernel', ['>=6.1 <=6.6'], 0.75]]],
    ['Cisco IOS XE', 'Cisco IOS XE Software 17.3 is vulnerable.', [['cisco', 'ios_xe', ['17.3'], 0.75]]],
  ])('%s', (_name, text, expected) => {
    expect(brief(fromText(text))).toEqual(expected);
  });

  it('gives each text finding the exact sentence it came from', () => {
    const text = 'Intro. Fortinet warns that CVE-2024-21762 affects FortiOS 7.0.0 to 7.0.12 and FortiProxy before 7.4.3. Outro.';
    const sentence = 'Fortinet warns that CVE-2024-21762 affects FortiOS 7.0.0 to 7.0.12 and FortiProxy before 7.4.3.';
    const out = fromText(text);
    expect(out.map((p) => p.passage?.text)).toEqual([sentence, sentence]);
    expect(out[0]?.passage?.charSpan).toEqual({ start: 7, end: 7 + sentence.length });
  });
});

describe('affectedProductsFrom: CPEs and CVE records', () => {
  it('parses CPE 2.3 and 2.2, merges with text and attaches the text passage', () => {
    const text = 'Progress MOVEit Transfer before 2023.0.1 was mass-exploited.';
    const out = affectedProductsFrom({
      text,
      cpes: ['cpe:2.3:a:progress:moveit_transfer:2023.0.0:*:*:*:*:*:*:*', 'cpe:/a:progress:moveit_transfer:2022.1.5', 'not a cpe'],
    });
    expectExact(text, out);
    expect(out).toEqual([
      {
        vendor: 'progress',
        product: 'moveit_transfer',
        versions: ['2023.0.0', '2022.1.5', '<2023.0.1'],
        confidence: 0.95,
        passage: { text, charSpan: { start: 0, end: text.length } },
      },
    ]);
  });

  it('reads NVD configurations and CVE 5 affected, normalising vendor and product names', () => {
    const out = affectedProductsFrom({
      text: '',
      cpes: [],
      cveRecords: [
        {
          cve: 'CVE-2024-3400',
          configurations: [{ nodes: [{ cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:o:paloaltonetworks:pan-os:*:*:*:*:*:*:*:*', versionStartIncluding: '11.1.0', versionEndExcluding: '11.1.2' }] }] }],
          affected: [{ vendor: 'Palo Alto Networks', product: 'PAN-OS', versions: [{ version: '10.2.0', status: 'affected', lessThan: '10.2.9-h1' }] }],
        },
        { cve: 'CVE-2024-21887', affected: [{ vendor: 'Ivanti', product: 'Ivanti Connect Secure', versions: [{ version: '9.0', status: 'affected' }] }] },
      ],
    });
    expect(brief(out)).toEqual([
      ['paloaltonetworks', 'pan-os', ['>=11.1.0 <11.1.2', '>=10.2.0 <10.2.9-h1'], 0.9],
      ['ivanti', 'connect_secure', ['9.0'], 0.9],
    ]);
    expect(out.every((p) => p.passage === undefined)).toBe(true);
  });

  it('finds a text mention for a CPE-only product that is not in the dictionary', () => {
    const text = 'Devices running Acme Widget Server are exposed. Nothing else.';
    const out = affectedProductsFrom({ text, cpes: ['cpe:2.3:a:acme:widget_server:*:*:*:*:*:*:*:*'] });
    expectExact(text, out);
    expect(out).toEqual([
      { vendor: 'acme', product: 'widget_server', versions: [], confidence: 0.95, passage: { text: 'Devices running Acme Widget Server are exposed.', charSpan: { start: 0, end: 47 } } },
    ]);
  });

  it('returns nothing for nothing', () => {
    expect(affectedProductsFrom({ text: '', cpes: [] })).toEqual([]);
  });
});

describe('product dictionary', () => {
  it.each([
    ['Palo Alto Networks', 'paloaltonetworks'],
    ['palo_alto_networks', 'paloaltonetworks'],
    ['Progress Software', 'progress'],
    ['Unknown Corp', 'unknown_corp'],
  ])('vendorId(%j)', (name, id) => {
    expect(vendorId(name)).toBe(id);
  });

  it.each([
    ['ivanti', 'Ivanti Connect Secure', 'connect_secure'],
    ['ivanti', 'connect_secure', 'connect_secure'],
    ['fortinet', 'FortiOS', 'fortios'],
    ['acme', 'Widget Server', 'widget_server'],
  ])('productId(%s, %j)', (vendor, name, id) => {
    expect(productId(vendor, name)).toBe(id);
  });
});
