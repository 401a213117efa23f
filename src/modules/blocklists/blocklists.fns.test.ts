import { describe, expect, it } from 'vitest';
import { allowRuleBroken, BUILTIN_ALLOW_RULES, canonicalDomain, canonicalRange, expiryOf, externalListLine, guessBlockType, parseBlockValue, type AllowRule } from './blocklists.fns.js';

const own: AllowRule[] = [...BUILTIN_ALLOW_RULES, { kind: 'domain', value: 'corp.example.com', note: 'ours', builtin: false }, { kind: 'cidr', value: '198.51.100.0/28', note: 'office', builtin: false }];

describe('the allow list', () => {
  it('refuses addresses and networks that share an address with an allowed range', () => {
    expect(allowRuleBroken('ipv4', '10.1.2.3', own)?.value).toBe('10.0.0.0/8');
    expect(allowRuleBroken('ipv4', '172.31.255.255', own)?.value).toBe('172.16.0.0/12');
    expect(allowRuleBroken('ipv4', '8.0.0.0/6', own)?.value).toBe('10.0.0.0/8');
    expect(allowRuleBroken('ipv4', '0.0.0.0/0', own)).not.toBeNull();
    expect(allowRuleBroken('ipv4', '198.51.100.15', own)?.value).toBe('198.51.100.0/28');
    expect(allowRuleBroken('ipv4', '198.51.100.16', own)).toBeNull();
    expect(allowRuleBroken('ipv4', '172.32.0.1', own)).toBeNull();
    expect(allowRuleBroken('ipv6', 'fd12:3456::1', own)?.value).toBe('fc00::/7');
    expect(allowRuleBroken('ipv6', '::ffff:192.168.1.1', own)?.value).toBe('192.168.0.0/16'); // an IPv4-mapped address is the IPv4 address
    expect(allowRuleBroken('ipv6', '2001:db8::1', own)).toBeNull();
  });

  it('refuses a domain equal to, under or above an allowed one, and URLs by their host', () => {
    expect(allowRuleBroken('domain', 'corp.example.com', own)?.value).toBe('corp.example.com');
    expect(allowRuleBroken('domain', 'vpn.corp.example.com', own)?.value).toBe('corp.example.com');
    expect(allowRuleBroken('domain', 'example.com', own)?.value).toBe('corp.example.com');
    expect(allowRuleBroken('domain', 'notcorp.example.com', own)).toBeNull();
    expect(allowRuleBroken('domain', 'localhost', own)?.value).toBe('localhost');
    expect(allowRuleBroken('url', 'https://sso.corp.example.com/login', own)?.value).toBe('corp.example.com');
    expect(allowRuleBroken('url', 'http://127.0.0.1:8080/x', own)?.value).toBe('127.0.0.0/8');
    expect(allowRuleBroken('url', 'http://[fe80::1]/x', own)?.value).toBe('fe80::/10');
    expect(allowRuleBroken('url', 'https://evil.example.net/x', own)).toBeNull();
    expect(allowRuleBroken('sha256', 'a'.repeat(64), own)).toBeNull();
  });
});

describe('values', () => {
  it('normalizes as intel does, and masks networks', () => {
    expect(parseBlockValue('domain', 'Evil[.]Example.NET')).toEqual({ ok: true, value: 'evil.example.net' });
    expect(parseBlockValue('url', 'hxxps://evil[.]example.net/a?b=1')).toEqual({ ok: true, value: 'https://evil.example.net/a?b=1' });
    expect(parseBlockValue('ipv4', '203.0.113.7/32')).toEqual({ ok: true, value: '203.0.113.7' });
    expect(parseBlockValue('ipv4', '203.0.113.7/24')).toEqual({ ok: true, value: '203.0.113.0/24' });
    expect(parseBlockValue('ipv6', '2001:DB8::/32')).toEqual({ ok: true, value: '2001:db8::/32' });
    const sha = '9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08';
    expect(parseBlockValue('sha256', sha)).toEqual({ ok: true, value: sha.toLowerCase() });
    expect(parseBlockValue('ipv4', '2001:db8::1').ok).toBe(false);
    expect(parseBlockValue('domain', 'two words.com').ok).toBe(false);
    expect(parseBlockValue('md5', 'a'.repeat(64)).ok).toBe(false);
  });

  it('reads the type of a bare value', () => {
    expect(guessBlockType('198.51.100[.]66')).toBe('ipv4');
    expect(guessBlockType('198.51.100.0/24')).toBe('ipv4');
    expect(guessBlockType('evil-site.com')).toBe('domain');
    expect(guessBlockType('hello')).toBeNull();
  });

  it('writes external-list lines: URLs without their scheme, never a line with a space', () => {
    expect(externalListLine('url', 'https://evil.example.net/a')).toBe('evil.example.net/a');
    expect(externalListLine('ipv4', '203.0.113.0/24')).toBe('203.0.113.0/24');
    expect(externalListLine('domain', 'a b')).toBeNull();
  });

  it('canonicalizes allow rules and computes expiry', () => {
    expect(canonicalRange('10.1.2.3/8')).toBe('10.0.0.0/8');
    expect(canonicalRange('corp.example.com')).toBeNull();
    expect(canonicalDomain('Corp.Example.COM.')).toBe('corp.example.com');
    expect(canonicalDomain('10.0.0.0/8')).toBeNull();
    const now = new Date('2026-01-01T00:00:00Z');
    expect(expiryOf(now, {}, 3600)?.toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(expiryOf(now, { ttlSeconds: 60 }, 3600)?.toISOString()).toBe('2026-01-01T00:01:00.000Z');
    expect(expiryOf(now, { expiresAt: null }, 3600)).toBeNull();
    expect(expiryOf(now, {}, null)).toBeNull();
  });
});
