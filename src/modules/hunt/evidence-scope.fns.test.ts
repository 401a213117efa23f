import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { advisoriesOf, group, planAssessment } from './assess.fns.js';
import type { ItemEvidence, ThreatForAssessment } from './assess.store.js';
import { DEFAULT_ALERT_SETTINGS } from './hunt-alerts.js';
import { purlKey } from './identity.fns.js';
import { softwareKey } from './inventory.fns.js';
import { kevProducts } from './kev-products.fns.js';
import type { InventorySoftware } from './matching.fns.js';
import { nvdCriteria } from './nvd-match.fns.js';

/**
 * Issue 49's cases through the pure assessment (planAssessment), with the real NVD records of
 * test/fixtures/hunt-eval/nvd: ranges come only from a record of the threat's own CVE, NVD's
 * CPE criteria are compared attribute by attribute, prose never adds to them, CSAF component
 * statements stay in their platform, KEV's vendor/product match as `unknown`.
 */
const fixtures = path.join(import.meta.dirname, '../../../test/fixtures/hunt-eval/nvd');
const nvdRecord = (cve: string) => JSON.parse(fs.readFileSync(path.join(fixtures, `${cve}.json`), 'utf8'));
const now = new Date('2026-11-29T00:00:00Z');
const threat = (cve: string): ThreatForAssessment => ({ id: cve, canonicalKey: cve, title: cve, latestRunId: null, activeHuntAlertId: null, latestAlertId: null, dismissed: false, prev: null });
const base = (id: string, threatId: string, text: string): ItemEvidence => ({
  id, threatId, title: id, text, publishedAt: new Date('2026-11-01T00:00:00Z'), knownExploited: false, retracted: false, affectedProducts: [], structured: null, nvdId: null, kev: null, techniques: [],
});
const nvdItem = (cve: string, threatId: string): ItemEvidence => {
  const r = nvdRecord(cve);
  return { ...base(`nvd-${cve}`, threatId, r.descriptions[0].value), nvdId: cve, recordIds: [cve], nvdCriteria: nvdCriteria(r.configurations) };
};
const sw = (asset: string, s: { vendor?: string; product: string; version: string; cpe?: string; purl?: string }, platform: string | null = null): InventorySoftware => ({
  assetId: asset, identifier: asset, kind: 'host', platform, internetFacing: false, criticality: 'high', vendor: s.vendor ?? '', product: s.product, version: s.version,
  productKey: softwareKey(s), purl: s.purl ?? null, cpe: s.cpe ?? null,
});

function matchesOf(threats: ThreatForAssessment[], items: ItemEvidence[], software: InventorySoftware[]) {
  const itemsByThreat = group(items, (i) => i.threatId);
  const orgKeys = { productKeys: new Set(software.map((s) => s.productKey)), packageOnlyKeys: new Set<string>(), purlsByKey: new Map<string, string[]>() };
  const softwareByPurl = group(software.filter((s) => s.purl), (s) => s.purl!);
  for (const [p] of softwareByPurl) orgKeys.purlsByKey.set(purlKey(p)!, [...(orgKeys.purlsByKey.get(purlKey(p)!) ?? []), p]);
  let n = 0;
  const plan = planAssessment({
    organizationId: 'org', kind: 'create', trigger: 'new_threat', now, actorUserId: null, threats, items, itemsByThreat, withdrawnThreats: new Set(),
    advisories: advisoriesOf(threats, itemsByThreat, orgKeys), softwareByKey: group(software, (s) => s.productKey), softwareByPurl,
    indicators: [], sightings: [], detections: [], telemetry: new Set(), settings: DEFAULT_ALERT_SETTINGS, epss: new Map(), newId: () => `run-${++n}`,
  });
  return new Map(plan.runs.map((r) => [r.threat_id, r.matches.map((m) => [m.assetIdentifier, m.version, m.verdict, m.affectedRange, m.fixedVersion, m.evidence, m.advisoryId])]));
}

describe('NVD records: their own criteria, per NIST IR 7696', () => {
  it('NetScaler ADC 13.1-37.170 FIPS is not in the NA-edition range; a standard build of 13.1-37.170 is, with its fix', () => {
    const fips = sw('adc-fips', { vendor: 'Citrix', product: 'NetScaler ADC', version: '13.1-37.170', cpe: 'cpe:2.3:a:citrix:netscaler_application_delivery_controller:13.1-37.170:*:*:*:fips:*:*:*' });
    const std = sw('adc-std', { vendor: 'Citrix', product: 'NetScaler ADC', version: '13.1-37.170', cpe: 'cpe:2.3:a:citrix:netscaler_application_delivery_controller:13.1-37.170:*:*:*:-:*:*:*' });
    const any = sw('adc-any', { vendor: 'Citrix', product: 'NetScaler ADC', version: '13.1-37.170', cpe: 'cpe:2.3:a:citrix:netscaler_application_delivery_controller:13.1-37.170:*:*:*:*:*:*:*' });
    const m = matchesOf([threat('CVE-2023-4966')], [nvdItem('CVE-2023-4966', 'CVE-2023-4966')], [fips, std, any]).get('CVE-2023-4966');
    expect(m).toEqual([
      ['adc-std', '13.1-37.170', 'affected', '>=13.1 <13.1-49.15', '13.1-49.15', 'nvd', 'CVE-2023-4966'],
      // A CPE that leaves the edition ANY may be either build: IR 7696 says neither superset nor disjoint.
      ['adc-any', '13.1-37.170', 'unknown', '>=12.1 <12.1-55.300, >=13.0 <13.0-92.19, >=13.1 <13.1-37.164, >=13.1 <13.1-49.15, >=14.1 <14.1-8.50', null, 'nvd', 'CVE-2023-4966'],
      ['adc-fips', '13.1-37.170', 'not_affected', '>=12.1 <12.1-55.300, >=13.1 <13.1-37.164', null, 'nvd', 'CVE-2023-4966'],
    ]);
  });

  it('httpd 2.4.50 is not affected by CVE-2021-41773 although the CVE-2021-42013 record (linked: its text names 41773) lists 2.4.50', () => {
    const httpd = (asset: string, version: string) => sw(asset, { vendor: 'Apache', product: 'HTTP Server', version, cpe: `cpe:2.3:a:apache:http_server:${version}:*:*:*:*:*:*:*` });
    const threats = [threat('CVE-2021-41773'), threat('CVE-2021-42013')];
    const items = [nvdItem('CVE-2021-41773', 'CVE-2021-41773'), nvdItem('CVE-2021-42013', 'CVE-2021-41773'), nvdItem('CVE-2021-42013', 'CVE-2021-42013')];
    const m = matchesOf(threats, items, [httpd('web-49', '2.4.49'), httpd('web-50', '2.4.50'), httpd('web-51', '2.4.51')]);
    expect(m.get('CVE-2021-41773')).toEqual([
      ['web-49', '2.4.49', 'affected', '=2.4.49', null, 'nvd', 'CVE-2021-41773'],
      ['web-50', '2.4.50', 'not_affected', '=2.4.49', null, 'nvd', 'CVE-2021-41773'],
      ['web-51', '2.4.51', 'not_affected', '=2.4.49', null, 'nvd', 'CVE-2021-41773'],
    ]);
    expect(m.get('CVE-2021-42013')).toEqual([
      ['web-49', '2.4.49', 'affected', '=2.4.49', null, 'nvd', 'CVE-2021-42013'],
      ['web-50', '2.4.50', 'affected', '=2.4.50', null, 'nvd', 'CVE-2021-42013'],
      ['web-51', '2.4.51', 'not_affected', '=2.4.49, =2.4.50', null, 'nvd', 'CVE-2021-42013'],
    ]);
  });

  it('Log4j 2.3.1 and 2.12.3 are not affected by CVE-2021-45105: the prose range 2.0-alpha1 through 2.16.0 adds nothing to NVD', () => {
    const log4j = (asset: string, version: string) => sw(asset, { product: 'log4j-core', version, purl: `pkg:maven/org.apache.logging.log4j/log4j-core@${version}` });
    const blog = { ...base('blog', 'CVE-2021-45105', 'Apache Log4j2 versions 2.0-alpha1 through 2.16.0 are affected by CVE-2021-45105.'), affectedProducts: [{ vendor: 'Apache', product: 'Log4j', versions: ['>=2.0-alpha1 <=2.16.0'], via: 'advisory' as const }] };
    const m = matchesOf([threat('CVE-2021-45105')], [nvdItem('CVE-2021-45105', 'CVE-2021-45105'), blog], [log4j('a', '2.3.1'), log4j('b', '2.12.3'), log4j('c', '2.16.0'), log4j('d', '2.12.2')]);
    expect(m.get('CVE-2021-45105')).toEqual([
      ['c', '2.16.0', 'affected', '>=2.13.0 <=2.16.0', null, 'nvd', 'CVE-2021-45105'],
      ['d', '2.12.2', 'affected', '>=2.4 <2.12.3', '2.12.3', 'nvd', 'CVE-2021-45105'],
      ['a', '2.3.1', 'not_affected', '>=2.0 <2.3.1, >=2.4 <2.12.3, >=2.13.0 <=2.16.0', null, 'nvd', 'CVE-2021-45105'],
      ['b', '2.12.3', 'not_affected', '>=2.0 <2.3.1, >=2.4 <2.12.3, >=2.13.0 <=2.16.0', null, 'nvd', 'CVE-2021-45105'],
    ]);
  });
});

describe('KEV-only CVEs', () => {
  it('maps vendorProject/product to product identities as NVD does (Git/Git → git): an unknown verdict, no versions', () => {
    const kev = { source: 'cisa_kev' as const, dateAdded: '2025-08-25', dueDate: '2025-09-15', knownRansomwareUse: false, vendorProject: 'Git', product: 'Git' };
    const item: ItemEvidence = { ...base('kev-48384', 'CVE-2025-48384', 'CVE-2025-48384: Git Link Following Vulnerability.'), knownExploited: true, kev, recordIds: ['CVE-2025-48384'], kevProducts: kevProducts(kev, '') };
    const m = matchesOf([threat('CVE-2025-48384')], [item], [sw('dev-1', { vendor: 'Git', product: 'Git', version: '2.43.0' }), sw('dev-2', { product: 'git', version: '2.43.0' })]);
    expect(m.get('CVE-2025-48384')).toEqual([
      ['dev-1', '2.43.0', 'unknown', null, null, 'kev', 'CVE-2025-48384'],
      ['dev-2', '2.43.0', 'unknown', null, null, 'kev', 'CVE-2025-48384'],
    ]);
  });
  it('reads vendor and product from the text of entries stored before they were kept, and splits "X and Y"', () => {
    expect(kevProducts({ source: 'cisa_kev', dateAdded: null, dueDate: null, knownRansomwareUse: false }, 'Vendor: Citrix. Product: NetScaler ADC and NetScaler Gateway.').map((p) => p.product)).toEqual(['NetScaler ADC', 'NetScaler Gateway']);
    expect(kevProducts(null, 'no vendor here')).toEqual([]);
  });
});

describe('CSAF component statements', () => {
  const csaf = (platform: { name: string; purl: string | null; cpe: string | null } | null, unaffected: string[], versions: string[] = []): ItemEvidence => ({
    ...base('csaf-1', 'CVE-2022-1471', 'snakeyaml'), recordIds: ['CVE-2022-1471'],
    structured: { advisoryId: 'stackable-2024-0001', evidence: 'csaf', packages: [{ ecosystem: 'Maven', name: 'org.yaml:snakeyaml', purl: 'pkg:maven/org.yaml/snakeyaml', ranges: [], versions, fixed: [], unaffected, platform }] },
  });
  it('known_not_affected for snakeyaml as a component of a Stackable image: not_affected only on an asset running that image, unknown elsewhere', () => {
    const platform = { name: 'Stackable Kafka 24.7.0', purl: 'pkg:oci/kafka', cpe: null };
    const inImage = sw('kafka-1', { product: 'snakeyaml', version: '1.33', purl: 'pkg:maven/org.yaml/snakeyaml@1.33' });
    const image = sw('kafka-1', { product: 'kafka', version: '24.7.0', purl: 'pkg:oci/kafka@sha256%3Aabc?tag=3.7.1-stackable24.7.0' });
    const standalone = sw('app-1', { product: 'snakeyaml', version: '1.33', purl: 'pkg:maven/org.yaml/snakeyaml@1.33' });
    const m = matchesOf([threat('CVE-2022-1471')], [csaf(platform, ['1.33'])], [inImage, image, standalone]);
    expect(m.get('CVE-2022-1471')).toEqual([
      ['app-1', '1.33', 'unknown', null, null, 'csaf', 'stackable-2024-0001'],
      ['kafka-1', '1.33', 'not_affected', null, null, 'csaf', 'stackable-2024-0001'],
    ]);
  });
  it('an asset whose platform field names the product runs it', () => {
    const platform = { name: 'Stackable Kafka 24.7.0', purl: null, cpe: null };
    const m = matchesOf([threat('CVE-2022-1471')], [csaf(platform, ['1.33'])], [sw('kafka-2', { product: 'snakeyaml', version: '1.33', purl: 'pkg:maven/org.yaml/snakeyaml@1.33' }, 'Stackable Kafka')]);
    expect(m.get('CVE-2022-1471')).toEqual([['kafka-2', '1.33', 'not_affected', null, null, 'csaf', 'stackable-2024-0001']]);
  });
});
