import { describe, expect, it } from 'vitest';
import { extractIocs, type ExtractResult } from './extract.fns.js';

/** Every span of every kept and dropped candidate slices back to the passage as written. */
function expectExactSpans(text: string, r: ExtractResult): void {
  for (const ioc of r.iocs) {
    expect(ioc.spans.length).toBeGreaterThan(0);
    const first = ioc.spans[0] as { start: number; end: number };
    expect(text.slice(first.start, first.end)).toBe(ioc.value);
    for (let i = 1; i < ioc.spans.length; i++) expect((ioc.spans[i] as { start: number }).start).toBeGreaterThan((ioc.spans[i - 1] as { start: number }).start);
    for (const s of ioc.spans) {
      expect(s.start).toBeGreaterThanOrEqual(0);
      expect(s.end).toBeLessThanOrEqual(text.length);
      expect(s.end).toBeGreaterThan(s.start);
    }
  }
  for (const d of r.dropped) expect(text.slice(d.span.start, d.span.end)).toBe(d.value);
}

/** [kind, passage] for every occurrence of every kept indicator, in text order. */
const passages = (text: string) =>
  extractIocs(text)
    .iocs.flatMap((i) => i.spans.map((s) => [s.start, i.kind, text.slice(s.start, s.end)] as const))
    .sort((a, b) => a[0] - b[0])
    .map(([, kind, p]) => [kind, p]);

describe('exact spans', () => {
  it('plain indicators', () => {
    const text = 'C2 45.77.12.9 and evil.com; mail a@evil.com.';
    const r = extractIocs(text);
    expect(r.iocs.map((i) => [i.kind, i.spans])).toEqual([
      ['ipv4', [{ start: 3, end: 13 }]],
      ['domain', [{ start: 18, end: 26 }, { start: 35, end: 43 }]],
      ['email', [{ start: 33, end: 43 }]],
    ]);
    expectExactSpans(text, r);
  });

  it('defanged passages are spanned as written, brackets included', () => {
    const text = 'Get hxxps://evil[.]com[/]a[.]php or 45[.]77[.]12[.]9 or bad [dot] site(.)ru or u [at] evil(.)com!';
    expect(passages(text)).toEqual([
      ['url', 'hxxps://evil[.]com[/]a[.]php'],
      ['domain', 'evil[.]com'],
      ['ipv4', '45[.]77[.]12[.]9'],
      ['domain', 'bad [dot] site(.)ru'],
      ['email', 'u [at] evil(.)com'],
      ['domain', 'evil(.)com'],
    ]);
    expectExactSpans(text, extractIocs(text));
  });

  it('trailing punctuation and unbalanced brackets are not part of a URL', () => {
    const text = 'See (http://evil.com/path). Or "https://evil.com/x?y=1", [https://evil.com/a_(b)] and https://evil.com/q?x=1;';
    expect(passages(text).filter(([k]) => k === 'url')).toEqual([
      ['url', 'http://evil.com/path'],
      ['url', 'https://evil.com/x?y=1'],
      ['url', 'https://evil.com/a_(b)'],
      ['url', 'https://evil.com/q?x=1'],
    ]);
    expectExactSpans(text, extractIocs(text));
  });

  it('offsets are UTF-16 code units: emoji, accents, CJK and RTL text before an indicator', () => {
    const text = '🔥🚨 Ünïcödé — 攻撃者 العربية C2 at bad-domain[.]xyz → 45.77.12.9 (テスト)';
    const r = extractIocs(text);
    const start = text.indexOf('bad-domain');
    expect(r.iocs.map((i) => [i.kind, i.value, i.spans])).toEqual([
      ['domain', 'bad-domain[.]xyz', [{ start, end: start + 16 }]],
      ['ipv4', '45.77.12.9', [{ start: text.indexOf('45.'), end: text.indexOf('45.') + 10 }]],
    ]);
    expectExactSpans(text, r);
  });

  it('internationalized names: the span covers the Unicode form, the value is punycode', () => {
    const text = 'phish at münchen-bank.de and http://пример.рф/путь and テスト.jp';
    const r = extractIocs(text);
    expect(r.iocs.map((i) => [i.kind, i.value, i.normalizedValue])).toEqual([
      ['domain', 'münchen-bank.de', 'xn--mnchen-bank-thb.de'],
      ['url', 'http://пример.рф/путь', 'http://xn--e1afmkfd.xn--p1ai/путь'],
      ['domain', 'пример.рф', 'xn--e1afmkfd.xn--p1ai'],
      ['domain', 'テスト.jp', 'xn--zckzah.jp'],
    ]);
    expectExactSpans(text, r);
  });

  it('CRLF line ends, tabs and a trailing indicator at the very end of the text', () => {
    const text = 'ip\t45.77.12.9\r\nhost:\tevil.com\r\nhash 44d88612fea8a8f36de82e1278abb02f';
    expect(passages(text)).toEqual([
      ['ipv4', '45.77.12.9'],
      ['domain', 'evil.com'],
      ['md5', '44d88612fea8a8f36de82e1278abb02f'],
    ]);
    const r = extractIocs(text);
    expect(r.iocs.at(-1)?.spans).toEqual([{ start: text.length - 32, end: text.length }]);
  });

  it('repeated values keep every occurrence, and value is the first as written', () => {
    const text = 'EVIL.com then evil[.]com then evil.com';
    const [ioc] = extractIocs(text).iocs;
    expect(ioc?.value).toBe('EVIL.com');
    expect(ioc?.spans.map((s) => text.slice(s.start, s.end))).toEqual(['EVIL.com', 'evil[.]com', 'evil.com']);
  });

  it('literal-prefixed ids (CVE, technique, ASN, cloud ids) are spanned exactly', () => {
    const text = 'CVE 2024 12345 / T1566/001 / ASN 13335 / subscription id: 5f1a3c2e-0b7d-4e8a-9c6f-1d2e3f4a5b6c';
    expect(passages(text)).toEqual([
      ['cve', 'CVE 2024 12345'],
      ['attack-technique', 'T1566/001'],
      ['asn', 'ASN 13335'],
      ['cloud-id', '5f1a3c2e-0b7d-4e8a-9c6f-1d2e3f4a5b6c'],
    ]);
  });

  it('a URL host span sits inside the URL span', () => {
    const text = 'x hxxp://user@evil[.]com:8080/a y';
    const r = extractIocs(text);
    const url = r.iocs.find((i) => i.kind === 'url');
    const host = r.iocs.find((i) => i.kind === 'domain');
    expect(url?.spans).toEqual([{ start: 2, end: 31 }]);
    expect(host?.spans).toEqual([{ start: 14, end: 24 }]);
    expect(text.slice(14, 24)).toBe('evil[.]com');
  });

  it('holds on a mixed report (every kind, kept and dropped)', () => {
    const text = [
      '## IOCs 🧪',
      '| type | value |',
      '|---|---|',
      '| url | hxxps://cdn-update[.]top/gate[.]php?id=1 |',
      '| ip | 185[.]220[.]101[.]45 |',
      '| ipv6 | 2a03:2880:f12f:83:face:b00c:0:25de |',
      '| sha256 | 275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f |',
      '| file | C:\\ProgramData\\svc\\updater.exe |',
      '| key | HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run |',
      '| mail | ops [at] cdn-update[.]top |',
      'Reserved: 10.0.0.1, 192.0.2.10, example.com. Resolver 8.8.8.8. Version 5.4.3.2. File update.py.',
      'Refs: https://attack.mitre.org/techniques/T1059/001/ CVE-2024-3400 ÅÄÖ wallet 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
    ].join('\n');
    const r = extractIocs(text);
    expectExactSpans(text, r);
    expect(r.iocs.map((i) => i.kind)).toEqual([
      'url',
      'domain',
      'ipv4',
      'ipv6',
      'sha256',
      'filename',
      'process',
      'registry-key',
      'email',
      'filename',
      'attack-technique',
      'cve',
      'btc',
    ]);
    expect(r.dropped.map((d) => d.value)).toEqual([
      '10.0.0.1',
      '192.0.2.10',
      'example.com',
      '8.8.8.8',
      '5.4.3.2',
      'update.py',
      'https://attack.mitre.org/techniques/T1059/001/',
      'attack.mitre.org',
    ]);
  });
});
