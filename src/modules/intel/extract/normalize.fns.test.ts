import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { extractIocs } from './extract.fns.js';
import {
  normalizeCve,
  normalizeEmail,
  normalizeFingerprint,
  normalizeHost,
  normalizeRegistryKey,
  normalizeTechnique,
  normalizeUrl,
  normalizeWindowsPath,
  registryKeyAsWritten,
} from './normalize.fns.js';
import { formatIpv6, parseIpv6, parseIpv6Parts } from './validate.fns.js';

const norm = (text: string) => extractIocs(text).iocs.map((i) => [i.kind, i.normalizedValue]);

describe('hosts', () => {
  it('lowercase, no trailing dot, punycode for Unicode labels', () => {
    expect(normalizeHost('EVIL-Domain.NET')).toBe('evil-domain.net');
    expect(normalizeHost('evil.com.')).toBe('evil.com');
    expect(normalizeHost('münchen-bank.de')).toBe('xn--mnchen-bank-thb.de');
    expect(normalizeHost('MÜNCHEN-BANK.DE')).toBe('xn--mnchen-bank-thb.de');
    expect(normalizeHost('пример.рф')).toBe('xn--e1afmkfd.xn--p1ai');
    expect(normalizeHost('xn--mnchen-bank-thb.de')).toBe('xn--mnchen-bank-thb.de');
  });

  it('the Unicode and punycode spellings of one IDN are one indicator', () => {
    const r = extractIocs('münchen-bank.de and XN--MNCHEN-BANK-THB.DE');
    expect(r.iocs.map((i) => [i.normalizedValue, i.spans.length])).toEqual([['xn--mnchen-bank-thb.de', 2]]);
  });

  it('in text', () => {
    expect(norm('UPDATE.Evil-CDN.NET and Evil.co.UK')).toEqual([
      ['domain', 'update.evil-cdn.net'],
      ['domain', 'evil.co.uk'],
    ]);
  });
});

describe('IPv6 canonical form (RFC 5952)', () => {
  it.each([
    ['2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2A03:2880:F12F:0083:FACE:B00C:0000:25DE', '2a03:2880:f12f:83:face:b00c:0:25de'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'], // the first of two equal zero runs
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'], // a single zero group is not shortened
    ['0:0:0:0:0:0:0:1', '::1'],
    ['fe80:0:0:0:0:0:0:0', 'fe80::'],
    ['::ffff:192.0.2.1', '::ffff:192.0.2.1'],
    ['0:0:0:0:0:ffff:c000:0201', '::ffff:192.0.2.1'],
    ['2001:db8::192.0.2.1', '2001:db8::c000:201'],
  ])('%s → %s', (input, canonical) => {
    const p = parseIpv6(input);
    expect(p.ok && p.value.canonical).toBe(canonical);
  });

  it('rejects malformed addresses', () => {
    for (const bad of ['1::2::3', '12345::1', '1:2:3:4:5:6:7:8:9', 'g::1', '1:2:3:4:5:6:7', 'fe80::1%eth0', ':1:2', '1.2.3.4']) {
      expect(parseIpv6(bad).ok).toBe(false);
    }
  });

  it('agrees with ipaddr.js on edge cases and random addresses', () => {
    const cases = ['::', '::1', '1::', '1:2:3:4:5:6:7::', '::2:3:4:5:6:7:8', '1:0:0:2:0:0:0:3', '0:0:1:0:0:1:0:0', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'];
    let seed = 42;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let n = 0; n < 300; n++) {
      // random groups with many zeros, so that zero runs of every length occur
      const groups = Array.from({ length: 8 }, () => (rnd() % 3 === 0 ? 0 : rnd() % 65536).toString(16));
      cases.push(groups.join(':'));
    }
    for (const addr of cases) {
      const ours = parseIpv6Parts(addr);
      const theirs = ipaddr.IPv6.parse(addr);
      expect(ours).toEqual(theirs.parts);
      // ipaddr.js's toRFC5952String agrees except for IPv4-mapped addresses, which RFC 5952 §5 writes dotted
      expect(formatIpv6(ours as number[])).toBe(theirs.toRFC5952String());
    }
  });

  it('in text and in URLs', () => {
    expect(norm('C2 2A03:2880:F12F:0083:FACE:B00C:0000:25DE, http://[2A03:2880:0:0::1]:80/x')).toEqual([
      ['ipv6', '2a03:2880:f12f:83:face:b00c:0:25de'],
      ['url', 'http://[2a03:2880::1]/x'],
      ['ipv6', '2a03:2880::1'],
    ]);
  });
});

describe('URLs', () => {
  it('normalizeUrl: lowercase scheme and host, default port removed, path refanged but otherwise kept', () => {
    expect(normalizeUrl({ scheme: 'https', userinfo: '', host: 'evil.com', port: '443', path: '/A[.]php?Q=1#F' })).toBe('https://evil.com/A.php?Q=1#F');
    expect(normalizeUrl({ scheme: 'http', userinfo: '', host: 'evil.com', port: '80', path: '' })).toBe('http://evil.com');
    expect(normalizeUrl({ scheme: 'http', userinfo: '', host: 'evil.com', port: '0080', path: '' })).toBe('http://evil.com');
    expect(normalizeUrl({ scheme: 'http', userinfo: '', host: 'evil.com', port: '08080', path: '/' })).toBe('http://evil.com:8080/');
    expect(normalizeUrl({ scheme: 'ftp', userinfo: 'u[:]p', host: 'evil.com', port: '21', path: '/a' })).toBe('ftp://u:p@evil.com/a');
    expect(normalizeUrl({ scheme: 'wss', userinfo: '', host: 'evil.com', port: '443', path: '/ws' })).toBe('wss://evil.com/ws');
  });

  it.each([
    ['HXXPS://Evil.COM:443/Path?Q=1#Frag', 'https://evil.com/Path?Q=1#Frag'],
    ['http://EVIL.com:80', 'http://evil.com'],
    ['http://evil.com:8080/x', 'http://evil.com:8080/x'],
    ['hxxp://evil[.]com/a[.]php[/]b', 'http://evil.com/a.php/b'],
    ['https://user:pw@evil.com/x', 'https://user:pw@evil.com/x'],
    ['http://münchen-bank.de/Login', 'http://xn--mnchen-bank-thb.de/Login'],
    ['http://45.77.12.9:443/x', 'http://45.77.12.9:443/x'],
  ])('%s → %s', (input, expected) => {
    expect(extractIocs(`u ${input} end`).iocs.find((i) => i.kind === 'url')?.normalizedValue).toBe(expected);
  });

  it('the same URL written differently is one indicator', () => {
    const r = extractIocs('https://evil.com/a and HTTPS://EVIL.COM:443/a and hxxps://evil[.]com/a');
    const urls = r.iocs.filter((i) => i.kind === 'url');
    expect(urls.map((u) => [u.normalizedValue, u.spans.length, u.defanged])).toEqual([['https://evil.com/a', 3, true]]);
  });
});

describe('other kinds', () => {
  it('registry keys: full root, single backslashes, no trailing backslash, lowercase path', () => {
    expect(normalizeRegistryKey('HKLM', '\\Software\\Run\\')).toBe('HKEY_LOCAL_MACHINE\\software\\run');
    expect(normalizeRegistryKey('hkcu', '\\\\Software\\\\X')).toBe('HKEY_CURRENT_USER\\software\\x');
    expect(normalizeRegistryKey('HKCR', '\\CLSID')).toBe('HKEY_CLASSES_ROOT\\clsid');
    expect(normalizeRegistryKey('HKU', '\\S-1-5-18')).toBe('HKEY_USERS\\s-1-5-18');
    expect(normalizeRegistryKey('HKCC', '\\System')).toBe('HKEY_CURRENT_CONFIG\\system');
    expect(normalizeRegistryKey('HKEY_USERS', '\\X')).toBe('HKEY_USERS\\x');
    expect(norm('HKLM\\\\SOFTWARE\\\\Evil and HKEY_LOCAL_MACHINE\\software\\evil\\')).toEqual([['registry-key', 'HKEY_LOCAL_MACHINE\\software\\evil']]);
  });

  it('emails: lowercase, refanged local part, punycode domain', () => {
    expect(normalizeEmail('John[.]Doe', 'evil.com')).toBe('john.doe@evil.com');
    expect(norm('John[.]Doe[@]MÜNCHEN-bank[.]de')).toEqual([
      ['email', 'john.doe@xn--mnchen-bank-thb.de'],
      ['domain', 'xn--mnchen-bank-thb.de'],
    ]);
  });

  it('windows paths: lowercase, doubled backslashes collapsed', () => {
    expect(normalizeWindowsPath('C:\\\\Users\\\\Public\\\\EVIL.exe')).toBe('c:\\users\\public\\evil.exe');
    expect(norm('C:\\\\Users\\\\Public\\\\EVIL.exe')).toEqual([
      ['filename', 'c:\\users\\public\\evil.exe'],
      ['process', 'evil.exe'],
    ]);
  });

  it('fingerprints, CVEs, techniques', () => {
    expect(normalizeFingerprint('AB:CD:EF:01')).toBe('abcdef01');
    expect(normalizeCve('2024', '3400')).toBe('CVE-2024-3400');
    expect(normalizeTechnique('T1566/001')).toBe('T1566.001');
    expect(normalizeTechnique('T1566.001')).toBe('T1566.001');
  });

  it('hashes lowercase, AS numbers as AS<n>, bech32 lowercase, eth lowercase', () => {
    expect(
      norm('44D88612FEA8A8F36DE82E1278ABB02F ASN 13335 BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ 0x32Be343B94f860124dC4fEe278FDCBD38C102D88'),
    ).toEqual([
      ['md5', '44d88612fea8a8f36de82e1278abb02f'],
      ['asn', 'AS13335'],
      ['btc', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
      ['eth', '0x32be343b94f860124dc4fee278fdcbd38c102d88'],
    ]);
  });
});

describe('registryKeyAsWritten', () => {
  it('canonical root and backslashes, case as written', () => {
    expect(registryKeyAsWritten('HKCU\\Software\\Run\\LummaUpd')).toBe('HKEY_CURRENT_USER\\Software\\Run\\LummaUpd');
    expect(registryKeyAsWritten('hklm:\\\\SOFTWARE\\\\Evil\\')).toBe('HKEY_LOCAL_MACHINE\\SOFTWARE\\Evil');
    expect(registryKeyAsWritten('C:\\Windows\\evil.exe')).toBeNull();
  });
});
