import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INDICATOR_TYPES, type IndicatorType } from './indicator-vocabulary.js';
import { normalizeIndicator } from './normalize-indicator.fns.js';
import { extractIocs } from './extract/extract.fns.js';

/**
 * One value, every way people and sources write it: each writing form of a type normalises to the
 * one stored value (issue 42 item 5), and that value is what the extractor stores for the same
 * text, so a sighting, a MISP attribute, a tool lookup and an indicator found in an article meet.
 */
const label = fc.stringMatching(/^[a-z][a-z0-9]{0,9}$/);
const domain = fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('com', 'net', 'org', 'io', 'de')).map(([ls, tld]) => [...ls, tld].join('.'));
const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
const octet = fc.integer({ min: 0, max: 255 });
const ipv4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join('.'));
const groups = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 });
const path = fc.array(fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,8}$/), { minLength: 1, maxLength: 4 });

/** Random case per character. */
const recase = (s: string, flips: boolean[]) => [...s].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c.toLowerCase())).join('');
const flips = fc.array(fc.boolean(), { minLength: 1, maxLength: 16 });
const defangDots = (s: string, how: number) => s.replace(/\./g, ['[.]', '(.)', '[dot]', '.'][how % 4]!);

/** Writing forms of one value: [type, the canonical value, the forms]. */
const CASES: Record<Exclude<IndicatorType, 'mutex' | 'other' | 'ssdeep' | 'cloud-id' | 'mobile-id' | 'xmr' | 'onion'>, fc.Arbitrary<[string, string[]]>> = {
  domain: fc.tuple(domain, flips, fc.nat()).map(([d, f, how]) => [d, [d, recase(d, f), `${d}.`, defangDots(recase(d, f), how), ` ${defangDots(d, how)}. `]]),
  ipv4: fc.tuple(ipv4, fc.nat()).map(([ip, how]) => [ip, [ip, defangDots(ip, how), ` ${ip} `]]),
  ipv6: fc.tuple(groups, flips).map(([g, f]) => {
    const full = g.map((x) => x.toString(16).padStart(4, '0')).join(':');
    const canonical = normalizeIndicator('ipv6', full);
    return [canonical, [full, recase(full, f), g.map((x) => x.toString(16)).join(':'), `[${full}]`, canonical.toUpperCase(), `[${canonical}]`]];
  }),
  url: fc.tuple(fc.constantFrom('http', 'https'), domain, path, flips, fc.nat()).map(([scheme, d, p, f, how]) => {
    const canonical = `${scheme}://${d}/${p.join('/')}`;
    const defanged = `${scheme === 'http' ? 'hxxp' : 'hxxps'}://${defangDots(d, how)}/${p.join('/')}`;
    return [canonical, [canonical, `${recase(scheme, f)}://${recase(d, f)}/${p.join('/')}`, defanged, `${scheme}://${d}.:${scheme === 'http' ? 80 : 443}/${p.join('/')}`]];
  }),
  email: fc.tuple(label, domain, flips, fc.nat()).map(([u, d, f, how]) => [`${u}@${d}`, [`${u}@${d}`, recase(`${u}@${d}`, f), `${u}[@]${defangDots(d, how)}`, `${u}@${d}.`]]),
  md5: fc.tuple(hex(32), flips).map(([h, f]) => [h, [h, recase(h, f), ` ${h.toUpperCase()} `]]),
  sha1: fc.tuple(hex(40), flips).map(([h, f]) => [h, [h, recase(h, f)]]),
  sha256: fc.tuple(hex(64), flips).map(([h, f]) => [h, [h, recase(h, f)]]),
  sha512: fc.tuple(hex(128), flips).map(([h, f]) => [h, [h, recase(h, f)]]),
  cert: hex(40).map((h) => [h, [h, h.toUpperCase(), h.match(/../g)!.join(':'), h.toUpperCase().match(/../g)!.join(':')]]),
  'registry-key': fc.tuple(fc.constantFrom(['HKLM', 'HKEY_LOCAL_MACHINE'], ['HKCU', 'HKEY_CURRENT_USER'], ['HKCR', 'HKEY_CLASSES_ROOT'], ['HKU', 'HKEY_USERS'], ['HKCC', 'HKEY_CURRENT_CONFIG']), path, flips).map(([[short, long], p, f]) => {
    const canonical = `${long}\\${p.join('\\').toLowerCase()}`;
    return [canonical, [`${short}\\${p.join('\\')}`, `${long}\\${p.join('\\')}`, `${short.toLowerCase()}:\\${recase(p.join('\\'), f)}`, `${long}\\${p.join('\\\\')}\\`]];
  }),
  filename: fc.tuple(path, flips).map(([p, f]) => [`c:\\${p.join('\\').toLowerCase()}.exe`, [`C:\\${p.join('\\')}.EXE`, `c:\\${recase(p.join('\\'), f)}.exe`, `C:\\\\${p.join('\\\\')}.exe`]]),
  process: fc.tuple(label, flips).map(([n, f]) => [`${n}.exe`, [`${n}.exe`, `${recase(n, f)}.EXE`]]),
  asn: fc.integer({ min: 1, max: 4_200_000_000 }).map((n) => [`AS${n}`, [`AS${n}`, `as${n}`, `${n}`, ` AS ${n} `]]),
  btc: fc.constant(['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ']]),
  eth: hex(40).map((h) => [`0x${h}`, [`0x${h}`, `0x${h.toUpperCase()}`]]),
};

describe('normalizeIndicator', () => {
  for (const [type, arb] of Object.entries(CASES)) {
    it(`${type}: every writing form normalises to one value`, () => {
      fc.assert(fc.property(arb, ([canonical, forms]) => {
        for (const f of forms) expect(normalizeIndicator(type as IndicatorType, f), f).toBe(canonical);
        // Idempotent: the stored value normalises to itself.
        expect(normalizeIndicator(type as IndicatorType, canonical)).toBe(canonical);
      }), { numRuns: 200 });
    });
  }

  it('covers every indicator type: the ones without a finer rule are trimmed and kept as written', () => {
    const untested = INDICATOR_TYPES.filter((t) => !(t in CASES));
    expect(untested.sort()).toEqual(['cloud-id', 'mobile-id', 'mutex', 'onion', 'other', 'ssdeep', 'xmr']);
    fc.assert(fc.property(fc.constantFrom('cloud-id', 'mobile-id', 'mutex', 'other', 'ssdeep', 'xmr') as fc.Arbitrary<IndicatorType>, fc.stringMatching(/^\S(.*\S)?$/), (type, v) => {
      expect(normalizeIndicator(type, ` ${v}\t`)).toBe(v);
    }));
    expect(normalizeIndicator('onion', 'Expyuzz4wqqyqhjn[.]ONION.')).toBe('expyuzz4wqqyqhjn.onion');
  });

  it('agrees with what the extractor stores for the same text', () => {
    const samples: Array<[IndicatorType, string]> = [
      ['domain', 'Evil-Example[.]NET'], ['url', 'hxxps://Evil-Example[.]net:443/payload.bin'], ['email', 'Ops@Evil-Example.net'],
      ['sha256', 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855'], ['registry-key', 'HKLM\\Software\\Run\\X'], ['filename', 'C:\\Users\\Public\\X.EXE'], ['process', 'Evil.EXE'],
      ['asn', 'AS13335'], ['eth', '0x52908400098527886E0F7030069857D2E4169EE7'], ['cert', 'AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01'], ['ipv4', '8.8.8[.]8'],
    ];
    for (const [type, text] of samples) {
      // Found, or dropped as benign/reserved (the empty file's hash): the value it stores either way.
      const r = extractIocs(text);
      const found = r.iocs.find((i) => i.kind === type)?.normalizedValue ?? r.dropped.find((d) => d.kind === type)?.normalizedValue;
      expect(found, text).toBe(normalizeIndicator(type, text));
    }
  });

  it('leaves a value that is not of its type as written (trimmed), never empty', () => {
    expect(normalizeIndicator('ipv6', 'not an address')).toBe('not an address');
    expect(normalizeIndicator('registry-key', 'not a key')).toBe('not a key');
    expect(normalizeIndicator('url', 'no scheme here')).toBe('no scheme here');
  });
});
