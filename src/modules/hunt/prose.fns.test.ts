import { describe, expect, it } from 'vitest';
import { matchProse, productsInText, proseProducts, type InventorySoftware } from './matching.fns.js';

// Keys as the inventory stores them; all but openssh are npm packages (purl) of the real SBOM.
const keys = new Set(['forwarded', 'content type', 'debug', 'send', 'cookie', 'undici', 'fastify', 'openssh']);
const packages = new Set(['forwarded', 'content type', 'debug', 'send', 'cookie', 'undici', 'fastify']);
const found = (text: string) => productsInText(text, keys, packages).map((p) => [p.product, p.versions]);

describe('products named in prose', () => {
  it('never takes a common word or header name for a package', () => {
    expect(found('Requests forwarded by a proxy with a crafted Content-Type header bypass validation.')).toEqual([]);
    expect(found('The cookie header is not parsed; enable debug logging and send the request again.')).toEqual([]);
    expect(found('The X-Forwarded-For header is trusted.')).toEqual([]);
  });

  it('takes a package named as one: with a version, in quotes or next to "package"', () => {
    expect(found('undici before 7.31.0 leaks memory.')).toEqual([['undici', ['<7.31.0']]]);
    expect(found('The npm package debug is affected.')).toEqual([['debug', []]]);
    expect(found('A flaw in `send` allows path traversal.')).toEqual([['send', []]]);
    expect(found('The undici-types package only has type definitions.')).toEqual([]);
  });

  it('reads fixes and negated sentences as no affected version', () => {
    expect(found('Fastify versions before 4.29.1 are affected. Fastify 5 is not affected. Upgrade to fastify 4.29.1.')).toEqual([['Fastify', ['<4.29.1']]]);
    expect(found('Fixed in undici 7.31.0 and 6.30.0.')).toEqual([['undici', []]]);
    expect(found('undici 7.31.0 and later are not affected.')).toEqual([['undici', []]]);
  });

  it('keeps products that are not packages as whole phrases, with OpenSSH-style versions', () => {
    expect(found('OpenSSH before 9.8p1 has a race in its signal handler.')).toEqual([['OpenSSH', ['<9.8p1']]]);
  });
});

describe('fixes in prose', () => {
  const pkg = (version: string): InventorySoftware => ({ assetId: 'a', identifier: 'rampart', kind: 'application', platform: null, internetFacing: false, criticality: 'medium', vendor: '', product: 'undici', version, productKey: 'undici', purl: `pkg:npm/undici@${version}`, cpe: null });
  it('a fix in the installed release line outranks the wider range, and is the fixed version of an affected one', () => {
    const text = 'Undici before 7.31.0 keeps aborted bodies in memory. Fixed in 7.31.0 and 6.21.1.';
    const ms = matchProse(proseProducts(text, [], keys, packages), [pkg('6.29.1'), pkg('7.30.2'), pkg('6.20.0')], 'item');
    expect(ms.map((m) => [m.software.version, m.verdict, m.fixedVersion])).toEqual([['6.29.1', 'not_affected', null], ['7.30.2', 'affected', '7.31.0'], ['6.20.0', 'affected', '6.21.1']]);
  });
});

describe('prose ranges and fixes on release lines (real GitHub Advisory Database texts)', () => {
  const sw = (purl: string, product: string, version: string): InventorySoftware => ({ assetId: 'a', identifier: 'svc', kind: 'application', platform: null, internetFacing: false, criticality: 'medium', vendor: '', product, version, productKey: product.replace(/[-_.]/g, ' ').toLowerCase(), purl: `${purl}@${version}`, cpe: null });
  const verdicts = (ms: ReturnType<typeof matchProse>) => ms.map((m) => [m.software.product, m.software.version, m.verdict, m.fixedVersion]);

  it('"through 7.30.x" names the 7 line only: undici 6.29.1 is unknown, not affected', () => {
    const ms = matchProse(proseProducts('undici through 7.30.x retains aborted response bodies.', [], keys, packages), [sw('pkg:npm/undici', 'undici', '7.30.2'), sw('pkg:npm/undici', 'undici', '6.29.1')], 'item');
    expect(verdicts(ms)).toEqual([['undici', '7.30.2', 'affected', null], ['undici', '6.29.1', 'unknown', null]]);
  });

  it('a quoted package after "upgrade to" is a fix (GHSA-9wx4-h78v-vm56)', () => {
    const text = '* Upgrade to `requests>=2.32.2`.\n* For `requests<2.32.0`, avoid setting `verify=False` for the first request.';
    const ms = matchProse(proseProducts(text, [], new Set(['requests']), new Set(['requests'])), [sw('pkg:pypi/requests', 'requests', '2.31.0'), sw('pkg:pypi/requests', 'requests', '2.32.3')], 'item');
    expect(verdicts(ms)).toEqual([['requests', '2.31.0', 'affected', null], ['requests', '2.32.3', 'not_affected', null]]);
  });

  it('backports fix their own minor line, and "only the X package is affected" leaves its siblings out (GHSA-jfh8-c2jp-5v3q)', () => {
    const text = 'Log4j versions prior to 2.16.0 are subject to a remote code execution vulnerability. Log4j version 2.15.0 contained an earlier fix for the vulnerability. '
      + 'Additional backports of this fix have been made available in versions 2.3.1, 2.12.2, and 2.12.3. Only the `org.apache.logging.log4j:log4j-core` package is directly affected by this vulnerability.';
    const listed = [{ vendor: 'Apache', product: 'Log4j', versions: ['<2.16.0'], via: 'advisory' as const }];
    const core = (v: string) => sw('pkg:maven/org.apache.logging.log4j/log4j-core', 'log4j-core', v);
    const ms = matchProse(proseProducts(text, listed, new Set(['log4j core', 'log4j api'])), [core('2.14.1'), core('2.12.1'), core('2.12.2'), core('2.15.0'), core('2.3'), sw('pkg:maven/org.apache.logging.log4j/log4j-api', 'log4j-api', '2.14.1')], 'item');
    expect(verdicts(ms)).toEqual([
      ['log4j-core', '2.14.1', 'affected', '2.15.0'],
      ['log4j-core', '2.12.1', 'affected', '2.12.2'],
      ['log4j-core', '2.12.2', 'not_affected', null],
      ['log4j-core', '2.15.0', 'not_affected', null],
      ['log4j-core', '2.3', 'affected', '2.3.1'],
    ]);
  });
});
