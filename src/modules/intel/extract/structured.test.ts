import { describe, expect, it } from 'vitest';
import { extractIocs } from './extract.fns.js';

/** [kind, normalizedValue, passages] of every kept indicator. */
const found = (text: string, opts?: { fileContext?: boolean }) =>
  extractIocs(text, opts).iocs.map((i) => [i.kind, i.normalizedValue, i.spans.map((s) => text.slice(s.start, s.end))]);

describe('structured inputs', () => {
  it('CSV', () => {
    const text = 'type,value\nip,45.77.12.9\ndomain,"cdn-update.top"\nurl,https://cdn-update.top/a.php\nsha1,3395856ce81f2b7382dee72602f798b642f14140';
    expect(found(text)).toEqual([
      ['ipv4', '45.77.12.9', ['45.77.12.9']],
      ['domain', 'cdn-update.top', ['cdn-update.top', 'cdn-update.top']],
      ['url', 'https://cdn-update.top/a.php', ['https://cdn-update.top/a.php']],
      ['sha1', '3395856ce81f2b7382dee72602f798b642f14140', ['3395856ce81f2b7382dee72602f798b642f14140']],
    ]);
  });

  it('JSON (quotes end values, & stays in a query)', () => {
    const text = '{"ioc":"45.77.12.9","host":"cdn-update.top","url":"https://cdn-update.top/x?a=1&b=2","md5":"44d88612fea8a8f36de82e1278abb02f"}';
    expect(found(text)).toEqual([
      ['ipv4', '45.77.12.9', ['45.77.12.9']],
      ['domain', 'cdn-update.top', ['cdn-update.top', 'cdn-update.top']],
      ['url', 'https://cdn-update.top/x?a=1&b=2', ['https://cdn-update.top/x?a=1&b=2']],
      ['md5', '44d88612fea8a8f36de82e1278abb02f', ['44d88612fea8a8f36de82e1278abb02f']],
    ]);
  });

  it('STIX patterns', () => {
    const text =
      "[ipv4-addr:value = '45.77.12.9'] AND [domain-name:value = 'cdn-update.top'] OR [file:hashes.'SHA-256' = '275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f']";
    expect(found(text).map(([k, v]) => [k, v])).toEqual([
      ['ipv4', '45.77.12.9'],
      ['domain', 'cdn-update.top'],
      ['sha256', '275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f'],
    ]);
  });

  it('log lines: timestamps and ports are not indicators', () => {
    const text = '2024-05-01T12:30:45Z sshd[123]: Failed password for root from 45.77.12.9 port 52144 ssh2';
    expect(extractIocs(text)).toEqual({
      iocs: [{ kind: 'ipv4', value: '45.77.12.9', normalizedValue: '45.77.12.9', confidence: 0.7, spans: [{ start: 62, end: 72 }], defanged: false }],
      dropped: [],
    });
  });

  it('mail headers', () => {
    const text = 'Received: from mail.cdn-update.top (mail.cdn-update.top [45.77.12.9]) by mx.victim.org';
    expect(found(text)).toEqual([
      ['domain', 'mail.cdn-update.top', ['mail.cdn-update.top', 'mail.cdn-update.top']],
      ['ipv4', '45.77.12.9', ['45.77.12.9']],
      ['domain', 'mx.victim.org', ['mx.victim.org']],
    ]);
  });

  it('HTML attributes', () => {
    const text = '<a href="https://cdn-update.top/x">click</a><img src=http://45.77.12.9/p.png>';
    expect(found(text)).toEqual([
      ['url', 'https://cdn-update.top/x', ['https://cdn-update.top/x']],
      ['domain', 'cdn-update.top', ['cdn-update.top']],
      ['url', 'http://45.77.12.9/p.png', ['http://45.77.12.9/p.png']],
      ['ipv4', '45.77.12.9', ['45.77.12.9']],
    ]);
  });

  it('a sandbox file listing with fileContext: TLD-like extensions are files', () => {
    const text = 'Dropped files:\n  stage2.pl\n  icon.ai\n  run.sh\n  C:\\Users\\x\\AppData\\Local\\Temp\\loader.exe\nNetwork: 45.77.12.9:443, cdn-update.top';
    expect(found(text, { fileContext: true }).map(([k, v]) => [k, v])).toEqual([
      ['filename', 'stage2.pl'],
      ['filename', 'icon.ai'],
      ['filename', 'run.sh'],
      ['filename', 'c:\\users\\x\\appdata\\local\\temp\\loader.exe'],
      ['process', 'loader.exe'],
      ['ipv4', '45.77.12.9'],
      ['domain', 'cdn-update.top'],
    ]);
    // without the hint, .pl and .ai are country TLDs
    expect(found(text).map(([k, v]) => [k, v]).slice(0, 3)).toEqual([
      ['domain', 'stage2.pl'],
      ['domain', 'icon.ai'],
      ['filename', 'run.sh'],
    ]);
  });

  it('host names built on an IP (PTR names, wildcard DNS) are names, not addresses', () => {
    const r = extractIocs('ptr 9.12.77.45.in-addr.arpa and 45.77.12.9.sslip.io');
    expect(r.iocs.map((i) => [i.kind, i.normalizedValue])).toEqual([['domain', '45.77.12.9.sslip.io']]);
    expect(r.dropped.map((d) => [d.kind, d.value, d.reason])).toEqual([['domain', '9.12.77.45.in-addr.arpa', 'infrastructure domain (.arpa)']]);
  });

  it('lists without spaces', () => {
    expect(found('IPs: 45.77.12.9,45.77.12.10;45.77.12.11|evil.com').map(([k, v]) => [k, v])).toEqual([
      ['ipv4', '45.77.12.9'],
      ['ipv4', '45.77.12.10'],
      ['ipv4', '45.77.12.11'],
      ['domain', 'evil.com'],
    ]);
  });
});
