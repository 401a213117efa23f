import { describe, expect, it } from 'vitest';
import { isForbiddenAddress } from './address-policy.js';

describe('address policy', () => {
  const refused: Array<[string, string]> = [
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fc00::1', 'private'],
    ['169.254.10.10', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'], // RFC 5737 documentation
    ['198.51.100.7', 'reserved'],
    ['203.0.113.99', 'reserved'],
    ['198.18.0.1', 'reserved'], // benchmarking
    ['2001:db8::1', 'reserved'],
    ['::7f00:1', 'reserved'], // deprecated IPv4-compatible
    ['169.254.169.254', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['::ffff:127.0.0.1', 'IPv4-mapped IPv6 to loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped IPv6 to loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped IPv6 to private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped IPv6 to cloud metadata'],
    ['::ffff:0:192.168.0.1', 'IPv4-translated IPv6 to private'],
    ['64:ff9b::a00:1', 'NAT64 to private'],
    ['64:ff9b::7f00:1', 'NAT64 to loopback'],
    ['64:ff9b:1::808:808', 'private'], // local-use NAT64 prefix
    ['2002:c0a8:0101::1', '6to4 to private'],
    ['2001::1', 'Teredo tunnel'],
  ];
  for (const [ip, reason] of refused) {
    it(`refuses ${ip} (${reason})`, () => expect(isForbiddenAddress(ip)).toBe(reason));
  }

  const allowed = ['93.184.216.34', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '192.169.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:0808:0808::1'];
  for (const ip of allowed) {
    it(`allows public ${ip}`, () => expect(isForbiddenAddress(ip)).toBeNull());
  }

  it('refuses what is not an address (fail closed)', () => {
    expect(isForbiddenAddress('example.com')).toBe('not an IP address');
    expect(isForbiddenAddress('')).toBe('not an IP address');
  });
});
