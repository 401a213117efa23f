import { describe, expect, it } from 'vitest';
import { affectedOf, csafShapeError, productsOf, versToEvents } from './csaf.fns.js';
import { changesFromCsv, changesFromRolie, distributionsOf } from './csaf-provider.fns.js';

describe('CSAF documents', () => {
  it('reads vers ranges as OSV events, and refuses what events cannot say', () => {
    expect(versToEvents('vers:npm/>=1.0.0|<1.2.3')).toEqual({ events: [{ introduced: '1.0.0' }, { fixed: '1.2.3' }], versions: [] });
    expect(versToEvents('vers:maven/<=2.14.1')).toEqual({ events: [{ introduced: '0' }, { last_affected: '2.14.1' }], versions: [] });
    expect(versToEvents('vers:generic/>=2.0|<2.3|>=3.0|<3.1')).toEqual({ events: [{ introduced: '2.0' }, { fixed: '2.3' }, { introduced: '3.0' }, { fixed: '3.1' }], versions: [] });
    expect(versToEvents('vers:all/*')).toEqual({ events: [{ introduced: '0' }], versions: [] });
    expect(versToEvents('vers:pypi/1.0|=1.1')).toEqual({ events: [], versions: ['1.0', '1.1'] });
    expect(versToEvents('vers:npm/!=1.0.0')).toBeNull();
    expect(versToEvents('2.x and later')).toBeNull();
  });

  it('identifies a relationship product (Red Hat: a package as a component of a platform) by its component, scoped to that platform', () => {
    const tree = {
      branches: [{ category: 'vendor', name: 'Red Hat', branches: [{ category: 'architecture', name: 'x86_64', branches: [{ category: 'product_version', name: 'telnet-server-1:0.17-65.el7_6.x86_64', product: { name: 'telnet-server', product_id: 'ts', product_identification_helper: { purl: 'pkg:rpm/redhat/telnet-server@0.17-65.el7_6?arch=x86_64&epoch=1' } } }] }] }],
      relationships: [{ category: 'default_component_of', product_reference: 'ts', relates_to_product_reference: '7Server', full_product_name: { name: 'telnet-server as a component of RHEL 7', product_id: '7Server:ts' } }],
    };
    const products = productsOf(tree);
    expect(products.get('7Server:ts')).toMatchObject({ purl: 'pkg:rpm/redhat/telnet-server@0.17-65.el7_6?arch=x86_64&epoch=1', version: '0.17-65.el7_6' });
    const notes: string[] = [];
    const affected = affectedOf({ product_status: { fixed: ['7Server:ts'], known_affected: ['nowhere'] } }, products, notes);
    expect(products.get('7Server:ts')!.platform).toEqual({ name: '7Server', purl: null, cpe: null, relationship: 'default_component_of' });
    expect(affected).toEqual([{ ecosystem: 'Red Hat', name: 'redhat/telnet-server', purl: 'pkg:rpm/redhat/telnet-server', ranges: [], versions: [], fixed: ['0.17-65.el7_6'], unaffected: [], platform: { name: '7Server', purl: null, cpe: null } }]);
    expect(notes).toEqual(['Product nowhere is named in product_status but not in the product tree.']);
  });

  it('keeps a component statement apart from the standalone package and per platform (issue 49: Stackable snakeyaml)', () => {
    const tree = {
      branches: [{ category: 'vendor', name: 'Stackable', branches: [
        { category: 'product_name', name: 'stackable-kafka', branches: [{ category: 'product_version', name: '24.7.0', product: { name: 'Stackable Kafka 24.7.0', product_id: 'kafka-24.7.0', product_identification_helper: { purl: 'pkg:oci/kafka@sha256%3Aabc?repository_url=oci.stackable.tech%2Fsdp%2Fkafka&tag=3.7.1-stackable24.7.0' } } }] },
        { category: 'product_name', name: 'snakeyaml', branches: [{ category: 'product_version', name: '1.33', product: { name: 'snakeyaml 1.33', product_id: 'snakeyaml-1.33', product_identification_helper: { purl: 'pkg:maven/org.yaml/snakeyaml@1.33' } } }] },
        { category: 'product_name', name: 'snakeyaml-plain', branches: [{ category: 'product_version', name: '1.30', product: { name: 'snakeyaml 1.30', product_id: 'snakeyaml-1.30', product_identification_helper: { purl: 'pkg:maven/org.yaml/snakeyaml@1.30' } } }] },
      ] }],
      relationships: [{ category: 'default_component_of', product_reference: 'snakeyaml-1.33', relates_to_product_reference: 'kafka-24.7.0', full_product_name: { name: 'snakeyaml 1.33 in Stackable Kafka 24.7.0', product_id: 'kafka-24.7.0:snakeyaml-1.33' } }],
    };
    const affected = affectedOf({ product_status: { known_not_affected: ['kafka-24.7.0:snakeyaml-1.33'], known_affected: ['snakeyaml-1.30'] } }, productsOf(tree), []);
    expect(affected).toEqual([
      { ecosystem: 'Maven', name: 'org.yaml:snakeyaml', purl: 'pkg:maven/org.yaml/snakeyaml', ranges: [], versions: ['1.30'], fixed: [], unaffected: [] },
      { ecosystem: 'Maven', name: 'org.yaml:snakeyaml', purl: 'pkg:maven/org.yaml/snakeyaml', ranges: [], versions: [], fixed: [], unaffected: ['1.33'], platform: { name: 'Stackable Kafka 24.7.0', purl: 'pkg:oci/kafka', cpe: null } },
    ]);
  });

  it('names the mandatory field a document lacks', () => {
    expect(csafShapeError({})).toBe('it has no `document` object');
    expect(csafShapeError({ document: { csaf_version: '2.0', category: 'csaf_base', title: 'x', tracking: { id: 'A' } } })).toBe('it has no document.tracking.current_release_date');
    expect(csafShapeError({ document: { csaf_version: '2.0', category: 'csaf_base', title: 'x', tracking: { id: 'A', current_release_date: '2026-01-01T00:00:00Z' } } })).toBeNull();
  });
});

describe('CSAF provider distributions', () => {
  it('resolves ROLIE feeds and directories, feed entries and changes.csv lines against their documents', () => {
    expect(distributionsOf({ distributions: [{ rolie: { feeds: [{ url: 'feed.json' }] } }, { directory_url: 'https://p.example/csaf' }, { directory_url: 'javascript:alert(1)' }] }, 'https://p.example/.well-known/csaf/provider-metadata.json'))
      .toEqual({ feeds: ['https://p.example/.well-known/csaf/feed.json'], directories: ['https://p.example/csaf/'] });
    expect(changesFromRolie({ feed: { entry: [{ link: [{ rel: 'self', href: '2026/a.json' }], updated: '2026-01-02T00:00:00+01:00' }, { updated: 'never' }] } }, 'https://p.example/f/feed.json'))
      .toEqual([{ url: 'https://p.example/f/2026/a.json', updated: '2026-01-01T23:00:00.000Z' }]);
    expect(changesFromCsv('"2026/a.json","2026-01-01T00:00:00Z"\r\n2026/b.json,2026-01-02T00:00:00Z\n\nbroken\n', 'https://p.example/csaf/'))
      .toEqual([{ url: 'https://p.example/csaf/2026/a.json', updated: '2026-01-01T00:00:00.000Z' }, { url: 'https://p.example/csaf/2026/b.json', updated: '2026-01-02T00:00:00.000Z' }]);
  });
});
