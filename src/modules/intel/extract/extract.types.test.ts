import { describe, expect, it } from 'vitest';
import { extractIocs, type ExtractedIoc } from './extract.fns.js';

/** [kind, normalizedValue, subtype?] of every kept indicator, in text order. */
const kept = (text: string, opts?: { fileContext?: boolean }) =>
  extractIocs(text, opts).iocs.map((i: ExtractedIoc) => (i.subtype ? [i.kind, i.normalizedValue, i.subtype] : [i.kind, i.normalizedValue]));

describe('each indicator type is extracted with its kind and normalized value', () => {
  it('ipv4', () => {
    expect(kept('C2 45.77.12.9 and 185.220.101.45.')).toEqual([
      ['ipv4', '45.77.12.9'],
      ['ipv4', '185.220.101.45'],
    ]);
  });

  it('ipv6 (canonical RFC 5952 form)', () => {
    expect(kept('C2 2A03:2880:F12F:0083:FACE:B00C:0000:25DE and 2a01:4f8:0:0:0:0:0:1')).toEqual([
      ['ipv6', '2a03:2880:f12f:83:face:b00c:0:25de'],
      ['ipv6', '2a01:4f8::1'],
    ]);
  });

  it('domain, and a URL with its host', () => {
    expect(kept('Beacon to update-check.evil-cdn.net then https://evil-cdn.net/api/v2?id=7')).toEqual([
      ['domain', 'update-check.evil-cdn.net'],
      ['url', 'https://evil-cdn.net/api/v2?id=7'],
      ['domain', 'evil-cdn.net'],
    ]);
  });

  it('url with an IP host, port and path', () => {
    expect(kept('GET http://45.77.12.9:8080/gate.php')).toEqual([
      ['url', 'http://45.77.12.9:8080/gate.php'],
      ['ipv4', '45.77.12.9'],
    ]);
  });

  it('url with an IPv6 host', () => {
    expect(kept('GET http://[2a01:4f8:0::1]:8443/x')).toEqual([
      ['url', 'http://[2a01:4f8::1]:8443/x'],
      ['ipv6', '2a01:4f8::1'],
    ]);
  });

  it('non-web schemes report the host only', () => {
    expect(kept('reverse shell tcp://45.77.12.9:4444 and ssh://root@evil.ru')).toEqual([
      ['ipv4', '45.77.12.9'],
      ['domain', 'evil.ru'],
    ]);
  });

  it('email (lowercased)', () => {
    expect(kept('Reply to Billing.Dept+x@Evil-Corp.COM now')).toEqual([
      ['email', 'billing.dept+x@evil-corp.com'],
      ['domain', 'evil-corp.com'],
    ]);
  });

  it('a mailbox at a benign provider is still an indicator (the provider domain is not)', () => {
    expect(kept('sender attacker1987@gmail.com')).toEqual([['email', 'attacker1987@gmail.com']]);
    expect(extractIocs('sender attacker1987@gmail.com').dropped).toEqual([]);
  });

  it('hashes: md5, sha1, sha256, sha512 (lowercased)', () => {
    const md5 = '44D88612FEA8A8F36DE82E1278ABB02F';
    const sha1 = '3395856ce81f2b7382dee72602f798b642f14140';
    const sha256 = '275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f';
    const sha512 =
      'be688838ca8686e5c90689bf2ab585cef1137c999b48c70b92f67a5c34dc15697b5d11c982ed6d71be1e1e7f7b4e0733884aa97c3f7a339a8ed03577cf74be09';
    expect(kept(`md5 ${md5}\nsha1: ${sha1}\nsha256=${sha256} sha512 ${sha512}`)).toEqual([
      ['md5', md5.toLowerCase()],
      ['sha1', sha1],
      ['sha256', sha256],
      ['sha512', sha512],
    ]);
  });

  it('ssdeep', () => {
    const h = '96:s4Ud1Lj96tHHlZDrwciQmA+4uy1I0G4HYuL8N3TzS8QsO/wqWXLcMSx:sF1LjEtHHlZDrJzrhuyZvHYm8tKp/RWO';
    expect(kept(`ssdeep ${h} end`)).toEqual([['ssdeep', h]]);
  });

  it('file names and paths, process names', () => {
    expect(kept('dropped invoice.pdf.exe, loader.dll and C:\\Users\\Public\\svchost.exe; %APPDATA%\\Roaming\\svc.dll')).toEqual([
      ['process', 'invoice.pdf.exe'],
      ['filename', 'loader.dll'],
      ['filename', 'c:\\users\\public\\svchost.exe', 'path'],
      ['process', 'svchost.exe'],
      ['filename', '%appdata%\\roaming\\svc.dll', 'path'],
    ]);
  });

  it('registry keys (root expanded, path lowercased, no trailing backslash)', () => {
    expect(kept('persists in HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run\\ and HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services.')).toEqual([
      ['registry-key', 'HKEY_CURRENT_USER\\software\\microsoft\\windows\\currentversion\\run'],
      ['registry-key', 'HKEY_LOCAL_MACHINE\\system\\currentcontrolset\\services'],
    ]);
  });

  it('registry key with a multi-word last component at the end of the key', () => {
    expect(kept('key "HKCU\\Volatile Environment" was read')).toEqual([['registry-key', 'HKEY_CURRENT_USER\\volatile environment']]);
  });

  it('certificate fingerprints (colon form and hex with context)', () => {
    expect(kept('SHA1 Fingerprint: AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01')).toEqual([
      ['cert', 'abcdef0123456789abcdef0123456789abcdef01', 'sha1'],
    ]);
    expect(kept('TLS certificate thumbprint 3395856ce81f2b7382dee72602f798b642f14140')).toEqual([
      ['cert', '3395856ce81f2b7382dee72602f798b642f14140', 'sha1'],
    ]);
  });

  it('cloud ids: AWS ARN and access key, Azure subscription, GCP project', () => {
    expect(
      kept('role arn:aws:iam::123456789012:role/S3Access. key AKIA2E0A8F3B244C9986 subscription id: 5F1A3C2E-0B7D-4E8A-9C6F-1D2E3F4A5B6C in projects/evil-proj-123'),
    ).toEqual([
      ['cloud-id', 'arn:aws:iam::123456789012:role/S3Access', 'aws-arn'],
      ['cloud-id', 'AKIA2E0A8F3B244C9986', 'aws-access-key'],
      ['cloud-id', '5f1a3c2e-0b7d-4e8a-9c6f-1d2e3f4a5b6c', 'azure-subscription'],
      ['cloud-id', 'evil-proj-123', 'gcp-project'],
    ]);
  });

  it('mobile app ids (reverse-DNS names and store links)', () => {
    expect(kept('Android package com.evil.stealer')).toEqual([['mobile-id', 'com.evil.stealer']]);
    expect(kept('https://play.google.com/store/apps/details?id=com.evil.app&hl=en')).toEqual([['mobile-id', 'com.evil.app', 'android']]);
  });

  it('CVE ids (normalized to CVE-YYYY-NNNN)', () => {
    expect(kept('CVE-2021-44228, cve-2023-1234 and CVE 2024 12345 and CVE‑2022‑0001')).toEqual([
      ['cve', 'CVE-2021-44228'],
      ['cve', 'CVE-2023-1234'],
      ['cve', 'CVE-2024-12345'],
      ['cve', 'CVE-2022-0001'],
    ]);
  });

  it('ATT&CK technique ids (sub-technique with a dot)', () => {
    expect(kept('T1059.001, T1566/001 and T1003 but not -T1059 or x.T1234')).toEqual([
      ['attack-technique', 'T1059.001'],
      ['attack-technique', 'T1566.001'],
      ['attack-technique', 'T1003'],
    ]);
  });

  it('crypto wallets: bitcoin (base58 and bech32), ethereum, monero', () => {
    expect(
      kept(
        'pay 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa or BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ or 0x32Be343B94f860124dC4fEe278FDCBD38C102D88 or 46bxDoy3pszR42Ds5FeygfWdbMfH7qB5hZHqEPnX6EgVhksrbzJtQYQeETZtniMfWk4Bt7TXmgybpZYRu2fTdppoAf9x7Yd',
      ),
    ).toEqual([
      ['btc', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
      ['btc', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
      ['eth', '0x32be343b94f860124dc4fee278fdcbd38c102d88'],
      ['xmr', '46bxDoy3pszR42Ds5FeygfWdbMfH7qB5hZHqEPnX6EgVhksrbzJtQYQeETZtniMfWk4Bt7TXmgybpZYRu2fTdppoAf9x7Yd'],
    ]);
  });

  it('a base58 string with a bad checksum is not a bitcoin address', () => {
    expect(kept('pay 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb now')).toEqual([]);
  });

  it('onion services (with or without the .onion suffix)', () => {
    const label = 'vww6ybal4bd7szmgncyruucpgfkqahzddi37ktceo3ah7ngmcopnpyyd';
    const r = extractIocs(`leak site ${label}.onion and mirror xmh57jrknzkhv6y3ls3ubitzfqnkrwxhopf5aygthi7d6rplyvk3noyd`);
    expect(r.iocs.map((i) => [i.kind, i.normalizedValue, i.value, i.confidence])).toEqual([
      ['onion', `${label}.onion`, `${label}.onion`, 0.9],
      ['onion', 'xmh57jrknzkhv6y3ls3ubitzfqnkrwxhopf5aygthi7d6rplyvk3noyd.onion', 'xmh57jrknzkhv6y3ls3ubitzfqnkrwxhopf5aygthi7d6rplyvk3noyd', 0.8],
    ]);
  });

  it('AS numbers', () => {
    expect(kept('hosted in AS15169, ASN 13335 and ASN15169')).toEqual([
      ['asn', 'AS15169'],
      ['asn', 'AS13335'],
    ]);
  });

  it('deduplicates by kind + normalized value and keeps every occurrence as a span', () => {
    const text = 'evil.com, EVIL.COM and evil[.]com';
    const [ioc, ...rest] = extractIocs(text).iocs;
    expect(rest).toEqual([]);
    expect(ioc).toEqual({
      kind: 'domain',
      value: 'evil.com',
      normalizedValue: 'evil.com',
      confidence: 0.75,
      spans: [
        { start: 0, end: 8 },
        { start: 10, end: 18 },
        { start: 23, end: 33 },
      ],
      defanged: true,
    });
  });

  it('an empty or indicator-free text gives nothing', () => {
    expect(extractIocs('')).toEqual({ iocs: [], dropped: [] });
    expect(extractIocs('Nothing to see here: just prose, 3.14 and e.g. a list.')).toEqual({ iocs: [], dropped: [] });
  });
});

describe('registry key boundaries', () => {
  const written = (text: string) => extractIocs(text).iocs.filter((i) => i.kind === 'registry-key').map((i) => i.value);
  it('a key ends before a space and a bracket or parenthesis, at sentence punctuation, or at the end of the line', () => {
    const key = 'HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run\\LummaUpd';
    expect(written(`Persistence via ${key} (T1547.001) was observed.`)).toEqual([key]);
    expect(written(`Persistence via ${key} [T1547.001]`)).toEqual([key]);
    expect(written(`Persistence via ${key}.`)).toEqual([key]);
    expect(written(`Persistence via ${key}, then a restart`)).toEqual([key]);
    expect(written(`${key}\nnext line`)).toEqual([key]);
    expect(written(`Persistence via ${key}`)).toEqual([key]);
  });
  it('keeps multi-word components that continue the key', () => {
    expect(written('HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon (T1547.004)')).toEqual(['HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon']);
  });
});
