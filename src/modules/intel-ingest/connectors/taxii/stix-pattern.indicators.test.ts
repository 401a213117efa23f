import { describe, expect, it } from 'vitest';
import { StixPatternError, indicatorsFromPattern } from './stix-pattern.fns.js';

/** `type:value` of every indicator the pattern yields, in order. */
function pairs(pattern: string): string[] {
  return indicatorsFromPattern(pattern, 0.8).map((i) => `${i.type}:${i.value}`);
}

const SHA256 = 'aec070645fe53ee3b3763059376134f058cc337247c978add178b6ccdfb0019f';
const MD5 = '3773a88f65a5e780c8dff9cdc3a056f3';
const SHA1 = 'e6ca06e9b000933567a8604300094a85e6ca06e9';
const SHA512 = 'a'.repeat(128);

describe('indicatorsFromPattern', () => {
  it('types each known object path', () => {
    const cases: Array<[string, string]> = [
      ["[ipv4-addr:value = '198.51.100.1/32']", 'ipv4:198.51.100.1/32'],
      ["[ipv4-addr:value = '198.51.100.7']", 'ipv4:198.51.100.7'],
      ["[ipv6-addr:value = '2001:db8::1']", 'ipv6:2001:db8::1'],
      ["[ipv6-addr:value = '2001:db8::/32']", 'ipv6:2001:db8::/32'],
      ["[domain-name:value = 'evil.example']", 'domain:evil.example'],
      ["[url:value = 'http://x4z9arb.cn/4712']", 'url:http://x4z9arb.cn/4712'],
      ["[email-addr:value = 'phisher@evil.example']", 'email:phisher@evil.example'],
      [`[file:hashes.MD5 = '${MD5}']`, `md5:${MD5}`],
      [`[file:hashes.'MD5' = '${MD5}']`, `md5:${MD5}`],
      [`[file:hashes.'SHA-1' = '${SHA1}']`, `sha1:${SHA1}`],
      [`[file:hashes.SHA1 = '${SHA1}']`, `sha1:${SHA1}`],
      [`[file:hashes.'SHA-256' = '${SHA256}']`, `sha256:${SHA256}`],
      [`[file:hashes.SHA256 = '${SHA256}']`, `sha256:${SHA256}`],
      [`[file:hashes.'SHA-512' = '${SHA512}']`, `sha512:${SHA512}`],
      ["[file:hashes.SSDEEP = '3072:Zf6aq1Lm6dh3nGvZ2:Zf6aq1Lmo3nGvZ2']", 'ssdeep:3072:Zf6aq1Lm6dh3nGvZ2:Zf6aq1Lmo3nGvZ2'],
      ["[file:name = 'invoice.pdf.exe']", 'filename:invoice.pdf.exe'],
      ["[windows-registry-key:key = 'HKEY_LOCAL_MACHINE\\\\Software\\\\x']", 'registry-key:HKEY_LOCAL_MACHINE\\Software\\x'],
      ["[process:name = 'svch0st.exe']", 'process:svch0st.exe'],
      ["[process:command_line = 'powershell -enc AAAA']", 'process:powershell -enc AAAA'],
      ["[mutex:name = 'Global\\\\ZonesCacheCounterMutex']", 'mutex:Global\\ZonesCacheCounterMutex'],
      [`[x509-certificate:hashes.'SHA-256' = '${SHA256}']`, `cert:${SHA256}`],
      ["[x509-certificate:serial_number = '36:f7:d4:32:f4:ab:70:ea']", 'cert:36:f7:d4:32:f4:ab:70:ea'],
      ['[autonomous-system:number = 15169]', 'asn:15169'],
      ["[autonomous-system:number = 'AS15169']", 'asn:15169'],
    ];
    for (const [pattern, expected] of cases) expect(pairs(pattern), pattern).toEqual([expected]);
  });

  it('sets origin, context (the original pattern) and confidence', () => {
    const pattern = "[domain-name:value = 'evil.example']";
    expect(indicatorsFromPattern(pattern, 0.65)).toEqual([
      { type: 'domain', value: 'evil.example', confidence: 0.65, origin: 'stix:pattern', context: pattern },
    ]);
  });

  it('takes every OR-ed value and every observation of a compound pattern', () => {
    expect(pairs(`[file:hashes.'SHA-256' = '${SHA256}' OR file:hashes.MD5 = '${MD5}']`)).toEqual([`sha256:${SHA256}`, `md5:${MD5}`]);
    expect(pairs("[domain-name:value = 'evil.example'] AND [url:value = 'http://x/y?a=\\'b\\'']")).toEqual([
      'domain:evil.example',
      "url:http://x/y?a='b'",
    ]);
    expect(pairs("([ipv4-addr:value = '10.1.1.1'] FOLLOWEDBY [domain-name:value = 'c2.example']) WITHIN 300 SECONDS")).toEqual([
      'ipv4:10.1.1.1',
      'domain:c2.example',
    ]);
    expect(pairs("[url:value = 'http://a.example/'] REPEATS 3 TIMES START t'2020-01-01T00:00:00Z' STOP t'2020-02-01T00:00:00Z'")).toEqual([
      'url:http://a.example/',
    ]);
  });

  it('takes the equality of an AND and ignores the other comparisons', () => {
    expect(pairs("[file:name = 'a' AND file:size > 100]")).toEqual(['filename:a']);
  });

  it('takes each member of an IN set', () => {
    expect(pairs("[ipv4-addr:value IN ('1.2.3.4', '5.6.7.8')]")).toEqual(['ipv4:1.2.3.4', 'ipv4:5.6.7.8']);
    expect(pairs('[autonomous-system:number IN (64496, 64511)]')).toEqual(['asn:64496', 'asn:64511']);
  });

  it('never takes negated comparisons', () => {
    expect(pairs("[ipv4-addr:value != '1.2.3.4']")).toEqual([]);
    expect(pairs("[ipv4-addr:value <> '1.2.3.4']")).toEqual([]);
    expect(pairs("[ipv4-addr:value NOT = '1.2.3.4']")).toEqual([]);
    expect(pairs("[ipv4-addr:value NOT IN ('1.2.3.4', '5.6.7.8')]")).toEqual([]);
    expect(pairs("[domain-name:value = 'keep.example' AND domain-name:value NOT = 'skip.example']")).toEqual(['domain:keep.example']);
  });

  it('never takes LIKE, MATCHES, ISSUBSET, ordering or EXISTS tests', () => {
    expect(pairs("[domain-name:value LIKE '%.evil.example']")).toEqual([]);
    expect(pairs("[file:name MATCHES '^inv.*\\\\.exe$']")).toEqual([]);
    expect(pairs("[ipv4-addr:value ISSUBSET '198.51.100.0/24']")).toEqual([]);
    expect(pairs('[autonomous-system:number > 100]')).toEqual([]);
    expect(pairs('[EXISTS windows-registry-key:values]')).toEqual([]);
  });

  it('ignores paths it does not know', () => {
    expect(pairs("[a:b = 'x'] FOLLOWEDBY [c:d = 'y']")).toEqual([]);
    expect(pairs("[email-message:subject = 'Invoice']")).toEqual([]);
    expect(pairs("[file:hashes.'SHA3-256' = 'abcd']")).toEqual([]);
    expect(pairs("[file:parent_directory_ref.path = 'C:\\\\tmp']")).toEqual([]);
    expect(pairs("[ipv4-addr:resolves_to_refs[0].value = '00:00:5e:00:53:00']")).toEqual([]);
  });

  it('types network-traffic ref values by their sibling type test', () => {
    expect(
      pairs("[network-traffic:dst_ref.type = 'ipv4-addr' AND network-traffic:dst_ref.value = '203.0.113.33/32']"),
    ).toEqual(['ipv4:203.0.113.33/32']);
    expect(pairs("[network-traffic:src_ref.value = '2001:db8::5' AND network-traffic:src_ref.type = 'ipv6-addr']")).toEqual([
      'ipv6:2001:db8::5',
    ]);
    expect(pairs("[network-traffic:dst_ref.type = 'domain-name' AND network-traffic:dst_ref.value = 'c2.example']")).toEqual([
      'domain:c2.example',
    ]);
    // The type test of the other ref does not count.
    expect(pairs("[network-traffic:src_ref.type = 'domain-name' AND network-traffic:dst_ref.value = 'c2.example']")).toEqual([]);
    // A sibling outside the OR branch still applies, one across an OR does not.
    expect(
      pairs(
        "[network-traffic:dst_ref.type = 'ipv4-addr' AND (network-traffic:dst_ref.value = '10.0.0.1' OR network-traffic:dst_ref.value = '10.0.0.2')]",
      ),
    ).toEqual(['ipv4:10.0.0.1', 'ipv4:10.0.0.2']);
    expect(pairs("[network-traffic:dst_ref.type = 'domain-name' OR network-traffic:dst_ref.value = 'c2.example']")).toEqual([]);
    expect(pairs("[network-traffic:dst_ref.type = 'mac-addr' AND network-traffic:dst_ref.value = '10.0.0.1']")).toEqual([]);
  });

  it('recognises an address in a network-traffic ref without a type test, but not a name', () => {
    expect(pairs("[network-traffic:dst_ref.value = '198.51.100.9' AND network-traffic:dst_port = 443]")).toEqual(['ipv4:198.51.100.9']);
    expect(pairs("[network-traffic:dst_ref.value = 'fe80::1']")).toEqual(['ipv6:fe80::1']);
    expect(pairs("[network-traffic:dst_ref.value = 'c2.example']")).toEqual([]);
  });

  it('deduplicates by (type, value), keeping the first', () => {
    expect(pairs("[ipv4-addr:value = '1.1.1.1' OR ipv4-addr:value = '1.1.1.1'] OR [ipv4-addr:value IN ('1.1.1.1', '2.2.2.2')]")).toEqual([
      'ipv4:1.1.1.1',
      'ipv4:2.2.2.2',
    ]);
    // The same text under two types is two indicators.
    expect(pairs("[file:name = 'evil.example' OR domain-name:value = 'evil.example']")).toEqual([
      'filename:evil.example',
      'domain:evil.example',
    ]);
  });

  it('drops values that cannot be what their path says', () => {
    expect(pairs("[domain-name:value = 'domain autuo.xicp.net' OR ipv4-addr:value = '60.10.1.115']")).toEqual(['ipv4:60.10.1.115']);
    expect(pairs("[ipv4-addr:value = '999.1.1.1']")).toEqual([]);
    expect(pairs("[ipv4-addr:value = '10.0.0.0/33']")).toEqual([]);
    expect(pairs("[ipv6-addr:value = 'not-an-address']")).toEqual([]);
    expect(pairs("[file:hashes.MD5 = 'abc']")).toEqual([]);
    expect(pairs(`[file:hashes.SHA256 = '${MD5}']`)).toEqual([]);
    expect(pairs("[email-addr:value = 'no-at-sign']")).toEqual([]);
    expect(pairs("[url:value = '   ']")).toEqual([]);
    expect(pairs("[file:name = 42]")).toEqual([]);
    expect(pairs("[ipv4-addr:value = 'true']")).toEqual([]);
  });

  it('trims surrounding whitespace but otherwise keeps the value as given', () => {
    expect(pairs("[domain-name:value = ' Evil.Example ']")).toEqual(['domain:Evil.Example']);
    expect(pairs(`[file:hashes.MD5 = '${MD5.toUpperCase()}']`)).toEqual([`md5:${MD5.toUpperCase()}`]);
  });

  it('accepts a hash given as a hex literal', () => {
    expect(pairs(`[file:hashes.MD5 = h'${MD5}']`)).toEqual([`md5:${MD5}`]);
    expect(pairs(`[file:name = h'${MD5}']`)).toEqual([]);
  });

  it('throws StixPatternError for a malformed pattern', () => {
    expect(() => indicatorsFromPattern("[ipv4-addr:value = '1.2.3.4'", 0.8)).toThrow(StixPatternError);
  });
});

describe('indicatorsFromPattern with hostile names', () => {
  it('does not resolve types through Object.prototype', () => {
    expect(pairs("[network-traffic:dst_ref.type = 'constructor' AND network-traffic:dst_ref.value = 'x']")).toEqual([]);
    expect(pairs("[file:hashes.constructor = 'x' OR file:hashes.'__proto__' = 'y' OR x:constructor = 'z']")).toEqual([]);
    expect(() => pairs("[file:name toString 'x']")).toThrow(/Unknown operator "toString"/);
  });
});
