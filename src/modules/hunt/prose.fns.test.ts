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
