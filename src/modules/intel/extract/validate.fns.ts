/**
 * Pure validators: IP syntax, hash shapes, wallet checksums (Base58Check, Bech32/Bech32m), onion v3 checksums,
 * hostname syntax, ssdeep block sizes, CVE years, ASN ranges. Each returns either a value or a reason string.
 */
import { createHash } from 'node:crypto';

export type Check<T> = { ok: true; value: T } | { ok: false; reason: string };

const ok = <T>(value: T): Check<T> => ({ ok: true, value });
const fail = <T>(reason: string): Check<T> => ({ ok: false, reason });

// ---- IPv4 -----------------------------------------------------------------------------------------------------

export const IPV4_LEADING_ZEROS_REASON = 'ambiguous IPv4 (leading zeros)';
export const IPV4_OCTET_REASON = 'invalid IPv4 address (octet > 255)';

/** Parse a refanged dotted quad to a uint32. Rejects octets > 255 and ambiguous leading zeros (octal?). */
export function parseIpv4(dotted: string): Check<number> {
  const parts = dotted.split('.');
  if (parts.length !== 4) return fail('invalid IPv4 address');
  let n = 0;
  for (const p of parts) {
    if (p.length === 0 || p.length > 3) return fail('invalid IPv4 address');
    if (p.length > 1 && p.charCodeAt(0) === 48) return fail(IPV4_LEADING_ZEROS_REASON);
    const v = Number(p);
    if (!(v <= 255)) return fail(IPV4_OCTET_REASON);
    n = n * 256 + v;
  }
  return ok(n);
}

/** `dottedQuadValue`'s answers other than a value (all negative; a value is a uint32). */
export const NOT_DOTTED_QUAD = -1;
export const IPV4_LEADING_ZEROS = -2;
export const IPV4_OCTET_OVER_255 = -3;

/**
 * What /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/ and then `parseIpv4` decide, in one pass over the characters: the
 * address as a uint32; NOT_DOTTED_QUAD when `s` is not four groups of one to three ASCII digits joined by dots; else
 * the first failing octet's reason as parseIpv4 checks them (leading zeros before > 255). Host assessment runs it
 * once per distinct host (tens of thousands in a long report), where the regex, the split into four strings, their
 * `Number`s and the result object were a tenth of the scan.
 */
export function dottedQuadValue(s: string): number {
  const len = s.length;
  if (len < 7 || len > 15) return NOT_DOTTED_QUAD;
  let n = 0;
  let octets = 0;
  let failure = 0;
  let i = 0;
  for (;;) {
    const from = i;
    let v = 0;
    for (let c = s.charCodeAt(i); c >= 48 && c <= 57 && i - from < 3; c = s.charCodeAt(++i)) v = v * 10 + (c - 48);
    const digits = i - from;
    if (digits === 0) return NOT_DOTTED_QUAD;
    if (failure === 0) {
      if (digits > 1 && s.charCodeAt(from) === 48) failure = IPV4_LEADING_ZEROS;
      else if (v > 255) failure = IPV4_OCTET_OVER_255;
    }
    n = n * 256 + v;
    if (++octets === 4) return i === len ? (failure === 0 ? n : failure) : NOT_DOTTED_QUAD;
    if (s.charCodeAt(i) !== 46) return NOT_DOTTED_QUAD;
    i++;
  }
}

// ---- IPv6 -----------------------------------------------------------------------------------------------------
// A small exact parser: ipaddr.js is correct but allocates regexes per call (~40 µs per address), too slow for a
// 50 MB/s scanner. The unit tests cross-check this parser against ipaddr.js on random and edge-case inputs.

/** Parse colon-separated hex groups (the last may be a dotted IPv4) into `out`; false when malformed. */
function parseIpv6Side(side: string, allowV4Tail: boolean, out: number[]): boolean {
  if (side === '') return true;
  let start = 0;
  for (;;) {
    let end = side.indexOf(':', start);
    if (end < 0) end = side.length;
    const len = end - start;
    if (allowV4Tail && end === side.length && side.indexOf('.', start) >= 0) {
      const v4 = parseIpv4(side.slice(start));
      if (!v4.ok) return false;
      out.push(Math.floor(v4.value / 65536), v4.value % 65536);
      return true;
    }
    if (len === 0 || len > 4) return false;
    let v = 0;
    for (let k = start; k < end; k++) {
      const c = side.charCodeAt(k) | 32;
      const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
      if (d < 0) return false;
      v = v * 16 + d;
    }
    out.push(v);
    if (end === side.length) return true;
    start = end + 1;
  }
}

/** The 8 16-bit groups of an IPv6 address (with optional embedded dotted IPv4 tail), or null if invalid. */
export function parseIpv6Parts(s: string): number[] | null {
  if (s.length < 2 || s.length > 45) return null;
  const dc = s.indexOf('::');
  const out: number[] = [];
  if (dc < 0) return parseIpv6Side(s, true, out) && out.length === 8 ? out : null;
  if (s.indexOf('::', dc + 1) >= 0) return null;
  if (!parseIpv6Side(s.slice(0, dc), false, out)) return null;
  const right: number[] = [];
  if (!parseIpv6Side(s.slice(dc + 2), true, right)) return null;
  const missing = 8 - out.length - right.length;
  if (missing < 1) return null;
  for (let i = 0; i < missing; i++) out.push(0);
  for (const g of right) out.push(g);
  return out;
}

/** RFC 5952 text form: lowercase, no leading zeros, longest zero run (≥ 2 groups) as '::'. */
export function formatIpv6(p: readonly number[]): string {
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0xffff) {
    const a = p[6] as number;
    const b = p[7] as number;
    return `::ffff:${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
  }
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (p[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && p[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (i: number): string => (p[i] as number).toString(16);
  if (bestStart < 0) return [0, 1, 2, 3, 4, 5, 6, 7].map(hex).join(':');
  const l: string[] = [];
  for (let i = 0; i < bestStart; i++) l.push(hex(i));
  const r: string[] = [];
  for (let i = bestStart + bestLen; i < 8; i++) r.push(hex(i));
  return `${l.join(':')}::${r.join(':')}`;
}

/** Canonical (RFC 5952) form and groups of a valid IPv6 address, or a reason. */
export function parseIpv6(candidate: string): Check<{ canonical: string; parts: number[] }> {
  const parts = candidate.includes('%') ? null : parseIpv6Parts(candidate);
  if (!parts) return fail('invalid IPv6 address');
  return ok({ canonical: formatIpv6(parts), parts });
}

const DIGIT_RE = /\d/;
/** Is a colon-run worth reporting when it fails IPv6 validation (vs. a time like 12:30:45)? */
export function looksLikeIpv6Attempt(candidate: string): boolean {
  let colons = 0;
  for (let i = candidate.indexOf(':'); i !== -1; i = candidate.indexOf(':', i + 1)) colons++;
  return candidate.includes('::') ? colons >= 3 || DIGIT_RE.test(candidate) : colons >= 7;
}

// ---- hashes -----------------------------------------------------------------------------------------------------

export const HASH_KIND_BY_LENGTH: Readonly<Record<number, 'md5' | 'sha1' | 'sha256' | 'sha512'>> = {
  32: 'md5',
  40: 'sha1',
  64: 'sha256',
  128: 'sha512',
};

const HEX_RE = /^[0-9a-f]+$/i;

export const isHex = (s: string): boolean => HEX_RE.test(s);

/** A hex run of length ≥ 32: which hash is it, or why not. */
export function classifyHex(hex: string): Check<'md5' | 'sha1' | 'sha256' | 'sha512'> {
  const kind = HASH_KIND_BY_LENGTH[hex.length];
  if (!kind) return fail(`invalid hash length (${hex.length} hex chars)`);
  // one pass for what /^(.)\1*$/ and /^\d+$/ tested ('.' matches no line terminator)
  const c0 = hex.charCodeAt(0);
  let same = c0 !== 10 && c0 !== 13 && c0 !== 0x2028 && c0 !== 0x2029;
  let digits = true;
  for (let i = 0; i < hex.length && (same || digits); i++) {
    const c = hex.charCodeAt(i);
    if (c !== c0) same = false;
    if (c < 48 || c > 57) digits = false;
  }
  if (same) return fail('degenerate hash (one repeated character)');
  if (digits) return fail('looks like a number, not a hash (digits only)');
  return ok(kind);
}

// ---- ssdeep ---------------------------------------------------------------------------------------------------

export function isSsdeepBlockSize(n: number): boolean {
  if (!Number.isInteger(n) || n < 3 || n % 3 !== 0) return false;
  let q = n / 3;
  while (q > 1 && q % 2 === 0) q /= 2;
  return q === 1;
}

// ---- Base58Check / Bech32 (Bitcoin) ----------------------------------------------------------------------------

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const B58_MAP = new Int16Array(128).fill(-1);
for (let i = 0; i < B58.length; i++) B58_MAP[B58.charCodeAt(i)] = i;

/** Decode Base58 to bytes (null on a bad char). */
export function base58Decode(s: string): Uint8Array | null {
  const bytes: number[] = [0];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? (B58_MAP[c] as number) : -1;
    if (v < 0) return null;
    let carry = v;
    for (let j = 0; j < bytes.length; j++) {
      carry += (bytes[j] as number) * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  for (let i = 0; i < s.length && s[i] === '1'; i++) bytes.push(0);
  return Uint8Array.from(bytes.reverse());
}

/** SHA-256 round constants. */
const K256 = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
  0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
  0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
  0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
  0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const W256 = new Uint32Array(64);
const H256 = new Uint32Array(8);

/**
 * SHA-256 in JavaScript (FIPS 180-4). Base58Check needs two hashes of a few dozen bytes per candidate address;
 * `createHash` costs ~2 µs a call in setup alone, this ~0.3 µs (the unit test checks it against node:crypto).
 */
export function sha256(msg: Uint8Array): Uint8Array {
  const len = msg.length;
  const blocks = Math.ceil((len + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(msg);
  padded[len] = 0x80;
  const bits = len * 8;
  const last = blocks * 64;
  padded[last - 4] = bits >>> 24;
  padded[last - 3] = bits >>> 16;
  padded[last - 2] = bits >>> 8;
  padded[last - 1] = bits;
  padded[last - 5] = Math.floor(len / 0x20000000);
  const h = H256;
  h[0] = 0x6a09e667;
  h[1] = 0xbb67ae85;
  h[2] = 0x3c6ef372;
  h[3] = 0xa54ff53a;
  h[4] = 0x510e527f;
  h[5] = 0x9b05688c;
  h[6] = 0x1f83d9ab;
  h[7] = 0x5be0cd19;
  const w = W256;
  for (let off = 0; off < last; off += 64) {
    for (let i = 0; i < 16; i++) {
      const o = off + i * 4;
      w[i] = ((padded[o] as number) << 24) | ((padded[o + 1] as number) << 16) | ((padded[o + 2] as number) << 8) | (padded[o + 3] as number);
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15] as number;
      const y = w[i - 2] as number;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (w[i - 16] as number) + s0 + (w[i - 7] as number) + s1;
    }
    let a = h[0] as number;
    let b = h[1] as number;
    let c = h[2] as number;
    let d = h[3] as number;
    let e = h[4] as number;
    let f = h[5] as number;
    let g = h[6] as number;
    let hh = h[7] as number;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + (K256[i] as number) + (w[i] as number)) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = (h[0] as number) + a;
    h[1] = (h[1] as number) + b;
    h[2] = (h[2] as number) + c;
    h[3] = (h[3] as number) + d;
    h[4] = (h[4] as number) + e;
    h[5] = (h[5] as number) + f;
    h[6] = (h[6] as number) + g;
    h[7] = (h[7] as number) + hh;
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const v = h[i] as number;
    out[i * 4] = v >>> 24;
    out[i * 4 + 1] = v >>> 16;
    out[i * 4 + 2] = v >>> 8;
    out[i * 4 + 3] = v;
  }
  return out;
}

/** Scratch for base58CheckVersion: the decoded number, least significant byte first, and the bytes in order. */
let b58Scratch = new Uint8Array(64);
let b58Bytes = new Uint8Array(64);

/**
 * Base58Check payload version byte, or null when the checksum is wrong. The bytes are those of `base58Decode`,
 * decoded into scratch buffers: every 25-to-35-character run that starts with '1' or '3' is a candidate (most are
 * not addresses), and the decoder's growing array, its reversal and copy were most of this check's allocation.
 */
export function base58CheckVersion(s: string): number | null {
  // the decoder's little-endian accumulator starts as one zero byte and gains at most one byte per character,
  // plus one per leading '1'
  if (b58Scratch.length < 2 * s.length + 2) {
    b58Scratch = new Uint8Array(2 * s.length + 2);
    b58Bytes = new Uint8Array(2 * s.length + 2);
  }
  const acc = b58Scratch;
  acc[0] = 0;
  let n = 1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? (B58_MAP[c] as number) : -1;
    if (v < 0) return null;
    let carry = v;
    for (let j = 0; j < n; j++) {
      carry += (acc[j] as number) * 58;
      acc[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      acc[n++] = carry & 0xff;
      carry >>= 8;
    }
  }
  for (let i = 0; i < s.length && s.charCodeAt(i) === 49 /* '1' */; i++) acc[n++] = 0;
  if (n < 5) return null;
  const raw = b58Bytes;
  for (let k = 0; k < n; k++) raw[k] = acc[n - 1 - k] as number;
  const sum = sha256(sha256(raw.subarray(0, n - 4)));
  for (let i = 0; i < 4; i++) if (sum[i] !== raw[n - 4 + i]) return null;
  return raw[0] as number;
}

const BECH32_CHARS = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

function bech32Polymod(values: number[]): number {
  const GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const b = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((b >>> i) & 1) chk ^= GEN[i] as number;
  }
  return chk >>> 0;
}

/** Valid Bech32 (BIP-173) or Bech32m (BIP-350) string with the given human-readable part? */
export function isValidBech32(s: string, hrp: string): boolean {
  if (s !== s.toLowerCase() && s !== s.toUpperCase()) return false;
  const str = s.toLowerCase();
  const pos = str.lastIndexOf('1');
  if (str.slice(0, pos) !== hrp || str.length - pos - 1 < 6) return false;
  const data: number[] = [];
  for (let i = pos + 1; i < str.length; i++) {
    const d = BECH32_CHARS.indexOf(str[i] as string);
    if (d < 0) return false;
    data.push(d);
  }
  const exp: number[] = [];
  for (let i = 0; i < hrp.length; i++) exp.push(hrp.charCodeAt(i) >> 5);
  exp.push(0);
  for (let i = 0; i < hrp.length; i++) exp.push(hrp.charCodeAt(i) & 31);
  const pm = bech32Polymod([...exp, ...data]);
  return pm === 1 || pm === 0x2bc830a3;
}

const BTC_B58_RE = /^[13][1-9A-HJ-NP-Za-km-z]{25,34}$/;
const BTC_BECH32_RE = /^bc1[02-9ac-hj-np-z]{11,71}$/i;

export function isBitcoinAddress(s: string): boolean {
  if (BTC_B58_RE.test(s)) {
    const v = base58CheckVersion(s);
    return v === 0x00 || v === 0x05;
  }
  return BTC_BECH32_RE.test(s) && isValidBech32(s, 'bc');
}

const XMR_RE = /^[48][0-9AB][1-9A-HJ-NP-Za-km-z]{93}$/;
export const isMoneroAddress = (s: string): boolean => XMR_RE.test(s);

const ETH_RE = /^0x[0-9a-f]{40}$/i;
export const isEthereumAddress = (s: string): boolean => ETH_RE.test(s) && !/^0x0+$/i.test(s);

// ---- Tor onion ------------------------------------------------------------------------------------------------

const B32 = 'abcdefghijklmnopqrstuvwxyz234567';

function base32Decode(s: string): Uint8Array | null {
  const out: number[] = [];
  let bits = 0;
  let acc = 0;
  for (const ch of s) {
    const v = B32.indexOf(ch);
    if (v < 0) return null;
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out.push((acc >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Uint8Array.from(out);
}

const ONION_V2_RE = /^[a-z2-7]{16}$/;
const ONION_V3_RE = /^[a-z2-7]{55}d$/;
/** v3 onion label (56 chars) with a valid SHA3 checksum and version 3, or a v2 label (16 chars, legacy). */
export function isOnionLabel(label: string): boolean {
  const l = label.toLowerCase();
  if (l.length === 16) return ONION_V2_RE.test(l);
  if (l.length !== 56 || !ONION_V3_RE.test(l)) return false;
  const raw = base32Decode(l);
  if (!raw || raw.length !== 35 || raw[34] !== 3) return false;
  const h = createHash('sha3-256')
    .update(Buffer.from('.onion checksum'))
    .update(raw.subarray(0, 32))
    .update(Uint8Array.of(3))
    .digest();
  return h[0] === raw[32] && h[1] === raw[33];
}

// ---- hostnames --------------------------------------------------------------------------------------------------

/** RFC 1035-ish syntax check on an ASCII (punycoded) hostname. */
export function checkHostnameSyntax(ascii: string): string | null {
  if (ascii.length === 0 || ascii.length > 253) return 'invalid hostname (length)';
  // each label [from, to) in order, by the dots' positions (no array of labels: this runs once per distinct host)
  for (let from = 0; ; ) {
    let to = ascii.indexOf('.', from);
    if (to < 0) to = ascii.length;
    if (to === from || to - from > 63) return 'invalid hostname (label length)';
    if (ascii.charCodeAt(from) === 45 || ascii.charCodeAt(to - 1) === 45) return 'invalid hostname (label starts/ends with hyphen)';
    if (to === ascii.length) return null;
    from = to + 1;
  }
}

// ---- CVE / ASN --------------------------------------------------------------------------------------------------

export function checkCveYear(year: number, now = new Date()): boolean {
  return year >= 1999 && year <= now.getUTCFullYear() + 1;
}

/** Reason an AS number is not a routable public ASN, or null. */
export function asnReservedReason(n: number): string | null {
  if (n === 0 || n === 65535 || n === 4294967295) return 'reserved ASN (RFC 7607/7300)';
  if (n === 23456) return 'reserved ASN (AS_TRANS, RFC 6793)';
  if ((n >= 64496 && n <= 64511) || (n >= 65536 && n <= 65551)) return 'documentation ASN (RFC 5398)';
  if ((n >= 64512 && n <= 65534) || (n >= 4200000000 && n <= 4294967294)) return 'private ASN (RFC 6996)';
  if (n > 4294967295) return 'invalid ASN (out of range)';
  return null;
}
