import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  base58CheckVersion,
  base58Decode,
  checkHostnameSyntax,
  dottedQuadValue,
  IPV4_LEADING_ZEROS,
  IPV4_OCTET_OVER_255,
  NOT_DOTTED_QUAD,
  parseIpv4,
  sha256,
} from './validate.fns.js';

/** A seeded generator, so a failure is reproducible. */
function prng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x / 0x80000000;
  };
}

describe('sha256 (Base58Check)', () => {
  it('sha256 equals node:crypto on every length from 0 to 300 bytes (one to six blocks, padding edges)', () => {
    const r = prng(11);
    for (let len = 0; len <= 300; len++) {
      const msg = Uint8Array.from({ length: len }, () => Math.floor(r() * 256));
      expect(Buffer.from(sha256(msg)).toString('hex')).toBe(createHash('sha256').update(msg).digest('hex'));
    }
  });
});

describe('base58CheckVersion', () => {
  /** What it computed before its scratch buffers: base58Decode's bytes, then the double SHA-256 checksum. */
  function before(s: string): number | null {
    const raw = base58Decode(s);
    if (!raw || raw.length < 5) return null;
    const sum = sha256(sha256(raw.subarray(0, raw.length - 4)));
    for (let i = 0; i < 4; i++) if (sum[i] !== raw[raw.length - 4 + i]) return null;
    return raw[0] ?? null;
  }

  it('answers as base58Decode and the checksum did: real addresses, leading ones, bad characters, random strings', () => {
    const cases = ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', '', '1', '1111', '11111', '111111111', '2', '0OIl', 'z'.repeat(90)];
    const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl';
    const r = prng(58);
    for (let i = 0; i < 20_000; i++) {
      let s = r() < 0.3 ? '1'.repeat(Math.floor(r() * 5)) : '';
      for (let len = Math.floor(r() * 40); len > 0; len--) s += alphabet[Math.floor(r() * (r() < 0.01 ? alphabet.length : 58))];
      cases.push(s);
    }
    let valid = 0;
    for (const s of cases) {
      const expected = before(s);
      if (expected !== null) valid++;
      expect(base58CheckVersion(s), s).toBe(expected);
    }
    // the real addresses' version bytes (P2PKH 0x00, P2SH 0x05)
    expect(base58CheckVersion('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).toBe(0);
    expect(base58CheckVersion('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy')).toBe(5);
    expect(valid).toBeGreaterThanOrEqual(2);
  });
});

describe('dottedQuadValue', () => {
  /** What host assessment decided before: the dotted-quad regex, then parseIpv4. */
  const DOTTED_QUAD_RE = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
  function before(s: string): number {
    if (!DOTTED_QUAD_RE.test(s)) return NOT_DOTTED_QUAD;
    const ip = parseIpv4(s);
    if (ip.ok) return ip.value;
    return ip.reason.includes('leading zeros') ? IPV4_LEADING_ZEROS : IPV4_OCTET_OVER_255;
  }

  it('answers as the regex and parseIpv4 did on edge cases', () => {
    const cases = [
      '1.2.3.4', '0.0.0.0', '255.255.255.255', '256.1.1.1', '1.1.1.256', '01.1.1.1', '1.1.1.01', '1.1.1.00', '0.1.2.3',
      '999.01.1.1', '01.999.1.1', '1.2.3', '1.2.3.4.5', '1.2.3.4.', '.1.2.3.4', '1..2.3', '1234.1.1.1', '1.1.1.1234',
      '1.1.1.1\n', '1.1.1.a', 'a.1.1.1', '1.1.1.١', '', '1.1.1.1 ', '10.0.0.1', '192.168.001.1', '300.300.300.300',
    ];
    for (const s of cases) expect(dottedQuadValue(s), s).toBe(before(s));
  });

  it('answers as the regex and parseIpv4 did on 20,000 random strings of digits and dots', () => {
    const r = prng(7);
    const alphabet = '0123456789.....12a';
    for (let n = 0; n < 20_000; n++) {
      const len = 1 + Math.floor(r() * 17);
      let s = '';
      for (let i = 0; i < len; i++) s += alphabet[Math.floor(r() * alphabet.length)];
      expect(dottedQuadValue(s), s).toBe(before(s));
    }
  });
});

describe('checkHostnameSyntax', () => {
  /** The split-based check it replaced. */
  function before(ascii: string): string | null {
    if (ascii.length === 0 || ascii.length > 253) return 'invalid hostname (length)';
    for (const label of ascii.split('.')) {
      if (label.length === 0 || label.length > 63) return 'invalid hostname (label length)';
      if (label.startsWith('-') || label.endsWith('-')) return 'invalid hostname (label starts/ends with hyphen)';
    }
    return null;
  }

  it('answers as the split-based check on edge cases and 20,000 random names', () => {
    const cases = ['a.b', 'a..b', '.a.b', 'a.b.', '-a.b', 'a-.b', 'a.-b', 'a.b-', '-', '.', '', 'a', `${'x'.repeat(63)}.com`, `${'x'.repeat(64)}.com`, `a.${'x'.repeat(64)}`, `${'a.'.repeat(126)}bc`, `${'a.'.repeat(127)}b`];
    for (const s of cases) expect(checkHostnameSyntax(s), s).toBe(before(s));
    const r = prng(5);
    const alphabet = 'ab-...-x';
    for (let n = 0; n < 20_000; n++) {
      const len = Math.floor(r() * 90);
      let s = '';
      for (let i = 0; i < len; i++) s += alphabet[Math.floor(r() * alphabet.length)];
      expect(checkHostnameSyntax(s), s).toBe(before(s));
    }
  });
});
