import { describe, expect, it } from 'vitest';
import { extractIocs } from './extract.fns.js';
import { isDefanged, refang, refangHost, refangScheme, refangWithMap } from './refang.fns.js';

describe('refang()', () => {
  it.each([
    // schemes
    ['hxxp://a.io', 'http://a.io'],
    ['hxxps://a.io', 'https://a.io'],
    ['hXXps://a.io', 'https://a.io'],
    ['h**p://a.io', 'http://a.io'],
    ['h[tt]p://a.io', 'http://a.io'],
    ['h[xx]ps://a.io', 'https://a.io'],
    ['fxp://a.io', 'ftp://a.io'],
    // scheme separators
    ['http[://]a.io', 'http://a.io'],
    ['http[:/]/a.io', 'http://a.io'],
    ['http:[//]a.io', 'http://a.io'],
    ['http[:][//]a.io', 'http://a.io'],
    ['http[:]//a.io', 'http://a.io'],
    // dots
    ['a[.]io', 'a.io'],
    ['a(.)io', 'a.io'],
    ['a{.}io', 'a.io'],
    ['a[dot]io', 'a.io'],
    ['a(dot)io', 'a.io'],
    ['a{dot}io', 'a.io'],
    ['a[DOT]io', 'a.io'],
    ['a [.] io', 'a.io'],
    ['a [dot] io', 'a.io'],
    ['a (dot) io', 'a.io'],
    ['a[ . ]io', 'a.io'],
    ['a dot io', 'a.io'],
    ['a\\.io', 'a.io'],
    // at signs
    ['u[@]a.io', 'u@a.io'],
    ['u(@)a.io', 'u@a.io'],
    ['u{@}a.io', 'u@a.io'],
    ['u[at]a.io', 'u@a.io'],
    ['u(at)a.io', 'u@a.io'],
    ['u [at] a.io', 'u@a.io'],
    // colons and slashes
    ['a.io[:]8080', 'a.io:8080'],
    ['a.io(:)8080', 'a.io:8080'],
    ['a.io{:}8080', 'a.io:8080'],
    ['a.io[/]path', 'a.io/path'],
    // everything at once
    ['hxxps[:]//user[@]sub[.]evil(.)com[:]8443[/]x[.]php', 'https://user@sub.evil.com:8443/x.php'],
  ])('%s → %s', (input, expected) => {
    expect(refang(input)).toBe(expected);
    expect(isDefanged(input)).toBe(true);
  });

  it('leaves live values and prose alone', () => {
    for (const s of ['http://a.io/x', 'evil.com', 'the hxxp protocol', 'user@a.io', 'array[0].name', 'f(x).y']) {
      expect(refang(s)).toBe(s);
    }
    expect(isDefanged('http://a.io/x')).toBe(false);
    expect(isDefanged('the hxxp protocol')).toBe(false);
  });

  it('refangHost only touches dot forms', () => {
    expect(refangHost('evil[.]co(dot)uk')).toBe('evil.co.uk');
    expect(refangHost('evil dot com')).toBe('evil.com');
    expect(refangHost('evil [dot] com')).toBe('evil.com');
    expect(refangHost('evil\\.com')).toBe('evil.com');
    expect(refangHost('u[@]evil.com')).toBe('u[@]evil.com');
  });

  it('refangScheme gives the live lowercase scheme', () => {
    expect(refangScheme('hxxp')).toBe('http');
    expect(refangScheme('HXXPS')).toBe('https');
    expect(refangScheme('h[tt]ps')).toBe('https');
    expect(refangScheme('h**p')).toBe('http');
    expect(refangScheme('fxp')).toBe('ftp');
    expect(refangScheme('TCP')).toBe('tcp');
  });
});

describe('refangWithMap()', () => {
  it('maps refanged offsets back to the exact original span', () => {
    const text = 'go to hxxps://evil[.]com[/]x now';
    const m = refangWithMap(text);
    expect(m.text).toBe('go to https://evil.com/x now');
    const s = m.text.indexOf('https');
    const e = m.text.indexOf(' now');
    expect(text.slice(m.toOriginal(s), m.toOriginal(e, 'end'))).toBe('hxxps://evil[.]com[/]x');
    const hs = m.text.indexOf('evil');
    const he = hs + 'evil.com'.length;
    expect(text.slice(m.toOriginal(hs), m.toOriginal(he, 'end'))).toBe('evil[.]com');
    expect(m.toRefanged(text.indexOf('evil'))).toBe(hs);
    expect(m.toRefanged(text.indexOf(' now'))).toBe(e);
  });

  it('is the identity on text without defang forms', () => {
    const m = refangWithMap('plain text 1.2.3.4');
    expect(m.text).toBe('plain text 1.2.3.4');
    expect(m.toOriginal(6)).toBe(6);
    expect(m.toRefanged(6)).toBe(6);
  });
});

describe('the extractor refangs every defang form', () => {
  const one = (text: string) => extractIocs(text).iocs.map((i) => [i.kind, i.normalizedValue, i.value, i.defanged]);

  it.each([
    ['evil[.]com', 'evil.com'],
    ['evil(.)com', 'evil.com'],
    ['evil{.}com', 'evil.com'],
    ['evil[dot]com', 'evil.com'],
    ['evil(dot)com', 'evil.com'],
    ['evil{dot}com', 'evil.com'],
    ['evil [dot] com', 'evil.com'],
    ['evil (dot) com', 'evil.com'],
    ['evil[ . ]com', 'evil.com'],
    ['evil\\.com', 'evil.com'],
    ['evil dot com', 'evil.com'],
  ])('domain %s', (input, normalized) => {
    expect(one(`C2: ${input} today`)).toEqual([['domain', normalized, input, true]]);
  });

  it.each([
    ['45[.]77[.]12[.]9'],
    ['45(.)77(.)12(.)9'],
    ['45[dot]77[dot]12[dot]9'],
    ['45{.}77{.}12{.}9'],
    ['45\\.77\\.12\\.9'],
    ['45.77.12[.]9'],
  ])('ipv4 %s', (input) => {
    expect(one(`beacon to ${input} seen`)).toEqual([['ipv4', '45.77.12.9', input, true]]);
  });

  it.each([
    ['hxxp://evil[.]com/a', 'http://evil.com/a'],
    ['hxxps://evil[.]com/a', 'https://evil.com/a'],
    ['hXXps://evil.com/a', 'https://evil.com/a'],
    ['h[tt]p://evil.com/a', 'http://evil.com/a'],
    ['h[xx]ps://evil.com/a', 'https://evil.com/a'],
    ['h**p://evil.com/a', 'http://evil.com/a'],
    ['fxp://evil.com/a', 'ftp://evil.com/a'],
    ['http[:]//evil.com/a', 'http://evil.com/a'],
    ['hxxps[:]//evil.com/a', 'https://evil.com/a'],
    ['http[://]evil.com/a', 'http://evil.com/a'],
    ['http[:/]/evil.com/a', 'http://evil.com/a'],
    ['http:[//]evil.com/a', 'http://evil.com/a'],
    ['http://evil.com[/]a', 'http://evil.com/a'],
    ['hxxp://evil[.]com[:]8080/a', 'http://evil.com:8080/a'],
    ['hxxp://evil[.]com/a[.]php', 'http://evil.com/a.php'],
  ])('url %s', (input, normalized) => {
    const r = extractIocs(`get ${input} now`);
    const url = r.iocs.find((i) => i.kind === 'url');
    expect(url).toMatchObject({ normalizedValue: normalized, value: input, defanged: true, spans: [{ start: 4, end: 4 + input.length }] });
    expect(r.iocs.find((i) => i.kind === 'domain')?.normalizedValue).toBe('evil.com');
  });

  it.each([
    ['user[@]evil[.]com'],
    ['user(@)evil.com'],
    ['user{@}evil.com'],
    ['user[at]evil.com'],
    ['user(at)evil(.)com'],
    ['user [at] evil[.]com'],
    ['user (at) evil.com'],
  ])('email %s', (input) => {
    const r = one(`mail ${input} now`);
    expect(r.filter(([k]) => k === 'email')).toEqual([['email', 'user@evil.com', input, true]]);
    // the mail domain is reported as a domain too
    expect(r.filter(([k]) => k === 'domain').map(([, v]) => v)).toEqual(['evil.com']);
  });

  it('a defanged occurrence raises confidence by 0.1', () => {
    const [plain] = extractIocs('evil.com').iocs;
    const [def] = extractIocs('evil[.]com').iocs;
    expect(plain?.confidence).toBe(0.65);
    expect(def?.confidence).toBe(0.75);
    // the bare " dot " form is weak evidence: −0.2 on top of the defang bonus
    expect(extractIocs('evil dot com').iocs[0]?.confidence).toBe(0.55);
  });
});
