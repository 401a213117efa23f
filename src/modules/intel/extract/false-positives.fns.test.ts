import { describe, expect, it } from 'vitest';
import { extractIocs, type DroppedCandidate } from './extract.fns.js';
import {
  awsKeyVerdict,
  benignDomainVerdict,
  hashVerdict,
  ipv4ContextVerdict,
  ipv4Verdict,
  ipv6Verdict,
  reservedDomainVerdict,
} from './false-positives.fns.js';
import { parseIpv4, parseIpv6 } from './validate.fns.js';

/** [kind, value as written, reason, category, normalizedValue] of every dropped candidate. */
const drops = (text: string, opts?: { fileContext?: boolean }) =>
  extractIocs(text, opts).dropped.map((d: DroppedCandidate) => [d.kind, d.value, d.reason, d.category, d.normalizedValue]);
const keptValues = (text: string, opts?: { fileContext?: boolean }) => extractIocs(text, opts).iocs.map((i) => `${i.kind}:${i.normalizedValue}`);

const v4 = (dotted: string) => {
  const p = parseIpv4(dotted);
  if (!p.ok) throw new Error(dotted);
  return ipv4Verdict(p.value, dotted);
};
const v6 = (addr: string) => {
  const p = parseIpv6(addr);
  if (!p.ok) throw new Error(addr);
  return ipv6Verdict(p.value.parts, p.value.canonical);
};

describe('IPv4 reserved ranges', () => {
  it.each([
    ['0.1.2.3', 'reserved address ("this network", RFC 1122)'],
    ['10.1.1.1', 'private address (RFC 1918)'],
    ['172.16.5.4', 'private address (RFC 1918)'],
    ['172.31.255.254', 'private address (RFC 1918)'],
    ['192.168.1.1', 'private address (RFC 1918)'],
    ['100.64.1.1', 'shared address space (carrier-grade NAT, RFC 6598)'],
    ['127.0.0.1', 'loopback address'],
    ['169.254.1.1', 'link-local address'],
    ['192.0.0.8', 'IETF protocol assignment (RFC 6890)'],
    ['192.0.2.10', 'documentation range (RFC 5737)'],
    ['198.51.100.7', 'documentation range (RFC 5737)'],
    ['203.0.113.9', 'documentation range (RFC 5737)'],
    ['198.18.0.1', 'benchmarking range (RFC 2544)'],
    ['198.19.255.1', 'benchmarking range (RFC 2544)'],
    ['192.88.99.1', 'deprecated 6to4 relay range (RFC 7526)'],
    ['224.0.0.251', 'multicast address'],
    ['240.1.1.1', 'reserved address (RFC 1112)'],
    ['255.255.255.255', 'broadcast address'],
  ])('%s is dropped: %s', (ip, reason) => {
    expect(v4(ip)).toEqual({ reason, category: 'reserved' });
    // the drop is recorded on the result with its exact span and normalized value, not lost
    expect(extractIocs(`host ${ip} seen`)).toEqual({
      iocs: [],
      dropped: [{ kind: 'ipv4', value: ip, reason, category: 'reserved', span: { start: 5, end: 5 + ip.length }, normalizedValue: ip }],
    });
  });

  it('range edges are exact', () => {
    expect(v4('172.32.0.1')).toBeNull();
    expect(v4('172.15.255.255')).toBeNull();
    expect(v4('100.128.0.1')).toBeNull();
    expect(v4('198.20.0.1')).toBeNull();
    expect(v4('192.0.3.1')).toBeNull();
    expect(v4('223.255.255.254')).toBeNull();
    expect(keptValues('172.32.0.1 100.128.0.1')).toEqual(['ipv4:172.32.0.1', 'ipv4:100.128.0.1']);
  });

  it('public DNS resolvers are benign infrastructure', () => {
    for (const ip of ['8.8.8.8', '8.8.4.4', '1.1.1.1', '1.0.0.1', '9.9.9.9', '149.112.112.112', '208.67.222.222', '4.2.2.2', '64.6.64.6', '94.140.14.14']) {
      expect(v4(ip)).toEqual({ reason: 'benign infrastructure (public DNS resolver)', category: 'benign' });
    }
    expect(drops('resolver 8.8.8.8')).toEqual([['ipv4', '8.8.8.8', 'benign infrastructure (public DNS resolver)', 'benign', '8.8.8.8']]);
  });

  it('netmasks are ambiguous', () => {
    expect(v4('255.255.255.0')).toEqual({ reason: 'looks like a netmask', category: 'ambiguous' });
    expect(v4('255.255.240.0')).toEqual({ reason: 'looks like a netmask', category: 'ambiguous' });
    expect(v4('255.0.0.0')).toEqual({ reason: 'looks like a netmask', category: 'ambiguous' });
    expect(drops('mask 255.255.255.0')).toEqual([['ipv4', '255.255.255.0', 'looks like a netmask', 'ambiguous', '255.255.255.0']]);
  });

  it('invalid dotted quads are dropped as invalid, without a normalized value', () => {
    expect(drops('see 300.1.1.1 and 01.2.3.4')).toEqual([
      ['ipv4', '300.1.1.1', 'invalid IPv4 address (octet > 255)', 'invalid', undefined],
      ['ipv4', '01.2.3.4', 'ambiguous IPv4 (leading zeros)', 'invalid', undefined],
    ]);
  });

  it('defanged reserved addresses are dropped too (the defang does not make them indicators)', () => {
    expect(drops('C2 192[.]168[.]0[.]1')).toEqual([['ipv4', '192[.]168[.]0[.]1', 'private address (RFC 1918)', 'reserved', '192.168.0.1']]);
  });
});

describe('IPv6 reserved ranges', () => {
  it.each([
    ['::', 'unspecified address'],
    ['::1', 'loopback address'],
    ['2001:db8::1', 'documentation range (RFC 3849)'],
    ['3fff::1', 'documentation range (RFC 9637)'],
    ['2001:2::1', 'benchmarking range (RFC 5180)'],
    ['100::1', 'discard-only range (RFC 6666)'],
    ['fe80::1', 'link-local address'],
    ['fec0::1', 'private address (deprecated site-local)'],
    ['fc00::1', 'private address (unique local, RFC 4193)'],
    ['fdc4:2581:575b:5a72::1', 'private address (unique local, RFC 4193)'],
    ['ff02::1', 'multicast address'],
    ['4000::1', 'reserved address (outside global unicast 2000::/3)'],
  ])('%s is dropped: %s', (ip, reason) => {
    expect(v6(ip)).toEqual({ reason, category: 'reserved' });
  });

  it('an IPv4-mapped address takes the IPv4 verdict', () => {
    expect(v6('::ffff:10.0.0.1')).toEqual({ reason: 'private address (RFC 1918)', category: 'reserved' });
    expect(v6('::ffff:45.77.12.9')).toBeNull();
  });

  it('public resolvers are benign; other global unicast is kept', () => {
    expect(v6('2001:4860:4860::8888')).toEqual({ reason: 'benign infrastructure (public DNS resolver)', category: 'benign' });
    expect(v6('2620:fe::fe')).toEqual({ reason: 'benign infrastructure (public DNS resolver)', category: 'benign' });
    expect(v6('2a03:2880:f12f:83:face:b00c:0:25de')).toBeNull();
  });

  it('drops are recorded with the canonical form', () => {
    expect(drops('via 2001:DB8:0:0::1 and fe80::1')).toEqual([
      ['ipv6', '2001:DB8:0:0::1', 'documentation range (RFC 3849)', 'reserved', '2001:db8::1'],
      ['ipv6', 'fe80::1', 'link-local address', 'reserved', 'fe80::1'],
    ]);
  });

  it('an invalid address that clearly tried to be IPv6 is recorded as invalid; times are not candidates', () => {
    expect(drops('bad 2001:db8::1::2 and 12:30:45')).toEqual([['ipv6', '2001:db8::1::2', 'invalid IPv6 address', 'invalid', undefined]]);
  });
});

describe('version numbers and phone numbers are not IPs', () => {
  it.each([
    ['v1.2.3.4', '1.2.3.4'],
    ['version 5.4.3.2', '5.4.3.2'],
    ['Version: 5.4.3.2', '5.4.3.2'],
    ['firmware 7.0.12.1', '7.0.12.1'],
    ['build 8.1.2.3', '8.1.2.3'],
    ['fixed in 4.2.1.9', '4.2.1.9'],
    ['prior to 5.1.0.2', '5.1.0.2'],
    ['upgrade to 6.0.1.3', '6.0.1.3'],
    ['6.0.1.3 and earlier', '6.0.1.3'],
    ['6.0.1.3 or later', '6.0.1.3'],
    ['release 1.2.3.4-beta', '1.2.3.4'],
    ['6.0.1.3-rc build', '6.0.1.3'],
  ])('%s', (text, ip) => {
    const r = extractIocs(text);
    expect(r.iocs).toEqual([]);
    expect(r.dropped.map((d) => [d.kind, d.value, d.reason, d.category])).toEqual([['ipv4', ip, 'looks like a version number', 'ambiguous']]);
  });

  it.each([
    ['Call +33 1.42.68.53 now', '1.42.68.53'],
    ['phone 212.55.12.34', '212.55.12.34'],
    ['Tel: 212.55.12.34', '212.55.12.34'],
    ['fax: +1 212.55.12.34', '212.55.12.34'],
    ['(555) 212.55.12.34', '212.55.12.34'],
    ['dial 212.55.12.34-5678', '212.55.12.34'],
  ])('%s', (text, ip) => {
    const r = extractIocs(text);
    expect(r.iocs).toEqual([]);
    expect(r.dropped.map((d) => [d.kind, d.value, d.reason, d.category])).toEqual([['ipv4', ip, 'looks like a phone number', 'ambiguous']]);
  });

  it('phone numbers with fewer than four groups are not candidates at all', () => {
    expect(extractIocs('Call +1 555.123.4567 or 01.42.68.53.00')).toEqual({ iocs: [], dropped: [] });
  });

  it('the context checks leave real addresses alone', () => {
    expect(keptValues('C2 at 45.77.12.9 (port 443), then 45.77.12.10, and IP: 45.77.12.11')).toEqual([
      'ipv4:45.77.12.9',
      'ipv4:45.77.12.10',
      'ipv4:45.77.12.11',
    ]);
    expect(ipv4ContextVerdict('C2 at 45.77.12.9 today', 6, 16)).toBeNull();
    expect(ipv4ContextVerdict('v 45.77.12.9 1.2', 2, 12)).toEqual({ reason: 'looks like a version number', category: 'ambiguous' });
  });

  it('a defanged address is never read as a version number', () => {
    expect(keptValues('version 45[.]77[.]12[.]9')).toEqual(['ipv4:45.77.12.9']);
  });
});

describe('reserved and benign domains', () => {
  it.each([
    ['srv.test', 'reserved domain (RFC 2606/6761)'],
    ['a.example', 'reserved domain (RFC 2606/6761)'],
    ['b.invalid', 'reserved domain (RFC 2606/6761)'],
    ['c.localhost', 'reserved domain (RFC 2606/6761)'],
    ['printer.local', 'reserved domain (mDNS, RFC 6762)'],
    ['vault.internal', 'private-use domain (.internal)'],
    ['nas.lan', 'private-use domain (not a public TLD)'],
    ['router.home', 'private-use domain (not a public TLD)'],
    ['dc.corp', 'private-use domain (not a public TLD)'],
    ['host.localdomain', 'private-use domain (not a public TLD)'],
    ['portal.intranet', 'private-use domain (not a public TLD)'],
    ['x.home.arpa', 'reserved domain (home.arpa, RFC 8375)'],
    ['1.0.0.127.in-addr.arpa', 'infrastructure domain (.arpa)'],
    ['example.com', 'documentation domain (RFC 2606)'],
    ['mail.example.org', 'documentation domain (RFC 2606)'],
    ['www.example.net', 'documentation domain (RFC 2606)'],
    ['example.edu', 'documentation domain (RFC 2606)'],
  ])('%s: %s', (host, reason) => {
    expect(drops(`host ${host} seen`)).toEqual([['domain', host, reason, 'reserved', host]]);
  });

  it('reservedDomainVerdict works on the registrable part only', () => {
    expect(reservedDomainVerdict('notexample.com', 'com')).toBeNull();
    expect(reservedDomainVerdict('example.com.evil.ru', 'ru')).toBeNull();
    expect(reservedDomainVerdict('a.b.example.com', 'com')).toEqual({ reason: 'documentation domain (RFC 2606)', category: 'reserved' });
    // Object.prototype's names are not reserved TLDs (a lookup in an object literal found them).
    expect(reservedDomainVerdict('foo.constructor', 'constructor')).toBeNull();
    expect(reservedDomainVerdict('foo.__proto__', '__proto__')).toBeNull();
    expect(extractIocs('see foo.constructor').dropped).toEqual([expect.objectContaining({ value: 'foo.constructor', reason: 'invalid top-level domain', category: 'invalid' })]);
  });

  it.each([
    ['attack.mitre.org'],
    ['nvd.nist.gov'],
    ['www.cisa.gov'],
    ['www.virustotal.com'],
    ['learn.microsoft.com'],
    ['github.com'],
    ['x.com'],
  ])('%s is benign infrastructure', (host) => {
    expect(drops(`see ${host}`)).toEqual([['domain', host, 'benign infrastructure (vendor/reference site)', 'benign', host]]);
  });

  it('benign means the registrable domain, not a look-alike', () => {
    expect(benignDomainVerdict('microsoft.com', 'login.microsoft.com')).toEqual({ reason: 'benign infrastructure (vendor/reference site)', category: 'benign' });
    expect(benignDomainVerdict('microsoft-update.com', 'microsoft-update.com')).toBeNull();
    expect(keptValues('microsoft.com.evil.ru and micros0ft.com')).toEqual(['domain:microsoft.com.evil.ru', 'domain:micros0ft.com']);
  });

  it('a URL on a reference site is dropped, but hashes in analysis-service links are kept', () => {
    const sha = '275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f';
    const text = `https://www.virustotal.com/gui/file/${sha}/detection and https://attack.mitre.org/techniques/T1071/`;
    const r = extractIocs(text);
    expect(r.iocs.map((i) => [i.kind, i.normalizedValue])).toEqual([
      ['sha256', sha],
      ['attack-technique', 'T1071'],
    ]);
    expect(r.dropped.map((d) => [d.kind, d.value, d.category])).toEqual([
      ['url', `https://www.virustotal.com/gui/file/${sha}/detection`, 'benign'],
      ['domain', 'www.virustotal.com', 'benign'],
      ['url', 'https://attack.mitre.org/techniques/T1071/', 'benign'],
      ['domain', 'attack.mitre.org', 'benign'],
    ]);
  });

  it('emails at reserved domains are dropped; an invalid TLD is invalid', () => {
    expect(drops('admin@example.com and x@evil.test and y@evil.nope')).toEqual([
      ['email', 'admin@example.com', 'documentation domain (RFC 2606)', 'reserved', 'admin@example.com'],
      ['email', 'x@evil.test', 'reserved domain (RFC 2606/6761)', 'reserved', 'x@evil.test'],
      ['email', 'y@evil.nope', 'invalid top-level domain', 'invalid', undefined],
    ]);
  });

  it('unknown TLDs are invalid; public suffixes are not registrable', () => {
    expect(drops('evil.nope and co.uk')).toEqual([
      ['domain', 'evil.nope', 'invalid top-level domain', 'invalid', undefined],
      ['domain', 'co.uk', 'public suffix, not a registrable domain', 'invalid', undefined],
    ]);
  });
});

describe('names that only look like domains', () => {
  it('file names whose extension is not a TLD are files, never domains', () => {
    expect(extractIocs('ran payload.dll, config.sys and evil.exe')).toEqual({
      iocs: [
        { kind: 'filename', value: 'payload.dll', normalizedValue: 'payload.dll', confidence: 0.5, spans: [{ start: 4, end: 15 }], defanged: false },
        { kind: 'filename', value: 'config.sys', normalizedValue: 'config.sys', confidence: 0.5, spans: [{ start: 17, end: 27 }], defanged: false },
        { kind: 'process', value: 'evil.exe', normalizedValue: 'evil.exe', confidence: 0.5, spans: [{ start: 32, end: 40 }], defanged: false },
      ],
      dropped: [],
    });
  });

  it('file names whose extension is also a TLD (.py, .zip, .sh, .mov…) are files, with the domain reading recorded as dropped', () => {
    const r = extractIocs('ran update.py then report.zip and install.sh');
    expect(r.iocs.map((i) => [i.kind, i.normalizedValue])).toEqual([
      ['filename', 'update.py'],
      ['filename', 'report.zip'],
      ['filename', 'install.sh'],
    ]);
    expect(r.dropped.map((d) => [d.kind, d.value, d.reason, d.category])).toEqual([
      ['domain', 'update.py', 'looks like a file name', 'ambiguous'],
      ['domain', 'report.zip', 'looks like a file name', 'ambiguous'],
      ['domain', 'install.sh', 'looks like a file name', 'ambiguous'],
    ]);
  });

  it('…but a defanged one or one inside a URL is a domain', () => {
    expect(keptValues('C2 evil[.]zip and https://evil.zip/x')).toEqual(['domain:evil.zip', 'url:https://evil.zip/x']);
  });

  it('fileContext reads more ambiguous extensions (.pl, .ps, .app…) and even defanged ones as files', () => {
    // .pl is Poland's TLD: a domain unless the text is file-centric
    expect(keptValues('dropped run.pl')).toEqual(['domain:run.pl']);
    expect(keptValues('dropped run.pl', { fileContext: true })).toEqual(['filename:run.pl']);
    expect(keptValues('dropped evil[.]zip', { fileContext: true })).toEqual(['filename:evil.zip']);
  });

  it('reverse-DNS app ids are mobile ids, not domains', () => {
    const r = extractIocs('package com.evil.stealer');
    expect(r.iocs.map((i) => [i.kind, i.normalizedValue, i.confidence])).toEqual([['mobile-id', 'com.evil.stealer', 0.85]]);
    expect(r.dropped.map((d) => [d.kind, d.reason, d.category])).toEqual([['domain', 'looks like a mobile app id (reverse-DNS package name)', 'ambiguous']]);
    // without mobile context a .com-first name is still an app id, with base confidence
    expect(extractIocs('seen com.evil.stealer').iocs.map((i) => [i.kind, i.confidence])).toEqual([['mobile-id', 0.6]]);
  });

  it('code member access, prose with a missing space, and product names are ambiguous', () => {
    expect(drops('window.location self.name the attack.In asp.net node.js')).toEqual([
      ['domain', 'window.location', 'looks like code (member access)', 'ambiguous', 'window.location'],
      ['domain', 'self.name', 'looks like code (member access)', 'ambiguous', 'self.name'],
      ['domain', 'attack.In', 'looks like prose (missing space after a period)', 'ambiguous', 'attack.in'],
      ['domain', 'asp.net', 'product name, not an indicator', 'ambiguous', 'asp.net'],
      ['domain', 'node.js', 'product name, not an indicator', 'ambiguous', 'node.js'],
    ]);
    expect(keptValues('window.location self.name the attack.In asp.net node.js')).toEqual([]);
  });

  it('" dot " between ordinary words is prose, not a defanged domain', () => {
    expect(drops('the dot com era')).toEqual([['domain', 'the dot com', 'prose, not a defanged domain (" dot " between words)', 'ambiguous', 'the.com']]);
    expect(keptValues('beacon to evil dot com')).toEqual(['domain:evil.com']);
  });

  it('abbreviations and numbers are not candidates', () => {
    expect(extractIocs('e.g. i.e. U.S. 3.14 a.b v2.1')).toEqual({ iocs: [], dropped: [] });
  });
});

describe('hashes, keys and ids', () => {
  it('hashes of empty input are benign', () => {
    expect(hashVerdict('d41d8cd98f00b204e9800998ecf8427f')).toEqual({ reason: 'benign (hash of empty input)', category: 'benign' });
    expect(drops('md5 D41D8CD98F00B204E9800998ECF8427F sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709 sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')).toEqual([
      ['md5', 'D41D8CD98F00B204E9800998ECF8427F', 'benign (hash of empty input)', 'benign', 'd41d8cd98f00b204e9800998ecf8427f'],
      ['sha1', 'da39a3ee5e6b4b0d3255bfef95601890afd80709', 'benign (hash of empty input)', 'benign', 'da39a3ee5e6b4b0d3255bfef95601890afd80709'],
      ['sha256', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'benign (hash of empty input)', 'benign', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ]);
  });

  it('degenerate, all-digit and wrong-length hex runs are invalid', () => {
    expect(drops('00000000000000000000000000000000 12345678901234567890123456789012 0123456789abcdef0123456789abcdef0')).toEqual([
      ['md5', '00000000000000000000000000000000', 'degenerate hash (one repeated character)', 'invalid', undefined],
      ['md5', '12345678901234567890123456789012', 'looks like a number, not a hash (digits only)', 'invalid', undefined],
      ['md5', '0123456789abcdef0123456789abcdef0', 'invalid hash length (33 hex chars)', 'invalid', undefined],
    ]);
  });

  it('CVE ids with an impossible year are invalid', () => {
    expect(drops('CVE-1990-0001')).toEqual([['cve', 'CVE-1990-0001', 'invalid CVE id (year out of range)', 'invalid', undefined]]);
  });

  it('reserved, documentation and private AS numbers', () => {
    expect(drops('AS0 AS23456 AS64500 AS65536 AS64512 AS4200000001')).toEqual([
      ['asn', 'AS0', 'reserved ASN (RFC 7607/7300)', 'reserved', 'AS0'],
      ['asn', 'AS23456', 'reserved ASN (AS_TRANS, RFC 6793)', 'reserved', 'AS23456'],
      ['asn', 'AS64500', 'documentation ASN (RFC 5398)', 'reserved', 'AS64500'],
      ['asn', 'AS65536', 'documentation ASN (RFC 5398)', 'reserved', 'AS65536'],
      ['asn', 'AS64512', 'private ASN (RFC 6996)', 'reserved', 'AS64512'],
      ['asn', 'AS4200000001', 'private ASN (RFC 6996)', 'reserved', 'AS4200000001'],
    ]);
  });

  it('cloud placeholders', () => {
    expect(awsKeyVerdict('AKIAIOSFODNN7EXAMPLE')).toEqual({ reason: 'documentation example (AWS)', category: 'reserved' });
    expect(drops('key AKIAIOSFODNN7EXAMPLE subscription 00000000-0000-0000-0000-000000000000 projects/my-project-123')).toEqual([
      ['cloud-id', 'AKIAIOSFODNN7EXAMPLE', 'documentation example (AWS)', 'reserved', 'AKIAIOSFODNN7EXAMPLE'],
      ['cloud-id', '00000000-0000-0000-0000-000000000000', 'placeholder GUID (all zeros)', 'reserved', '00000000-0000-0000-0000-000000000000'],
      ['cloud-id', 'my-project-123', 'documentation placeholder', 'reserved', 'my-project-123'],
    ]);
  });
});

describe('every drop is recorded with an exact span', () => {
  it('one record per occurrence, sorted by position, value = text.slice(span)', () => {
    const text = '10.0.0.1 then 10.0.0.1, example.com, update.py, 8.8.8.8 and CVE-1990-0001';
    const r = extractIocs(text);
    expect(r.dropped.map((d) => [d.kind, d.span.start])).toEqual([
      ['ipv4', 0],
      ['ipv4', 14],
      ['domain', 24],
      ['domain', 37],
      ['ipv4', 48],
      ['cve', 60],
    ]);
    for (const d of r.dropped) {
      expect(text.slice(d.span.start, d.span.end)).toBe(d.value);
      expect(d.reason.length).toBeGreaterThan(0);
    }
  });
});
