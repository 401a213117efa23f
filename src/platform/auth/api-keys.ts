import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API key format: `rmp_<prefix>_<secret>`. The 8-character prefix is not secret: it is stored in
 * clear and used to find the row. The secret is 32 random bytes (43 base64url characters).
 * Only SHA-256 of the whole key is stored; a fast hash is right here because the key carries
 * 256 bits of entropy (nothing to brute-force), and it keeps authentication cheap.
 */
const KEY_PATTERN = /^rmp_([a-z0-9]{8})_([A-Za-z0-9_-]{43})$/;
const PREFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export interface GeneratedKey {
  key: string;
  prefix: string;
  hash: Buffer;
}

export function generateApiKey(): GeneratedKey {
  const bytes = randomBytes(8);
  let prefix = '';
  for (const b of bytes) prefix += PREFIX_ALPHABET[b % PREFIX_ALPHABET.length];
  const key = `rmp_${prefix}_${randomBytes(32).toString('base64url')}`;
  return { key, prefix, hash: hashApiKey(key) };
}

/** Parses a key given by an operator (RAMPART_BOOTSTRAP_API_KEY) or a client. */
export function parseApiKey(key: string): { prefix: string } | null {
  const m = KEY_PATTERN.exec(key);
  return m ? { prefix: m[1]! } : null;
}

export function keyFromValue(key: string): GeneratedKey {
  const parsed = parseApiKey(key);
  if (!parsed) throw new Error('Not a Rampart API key');
  return { key, prefix: parsed.prefix, hash: hashApiKey(key) };
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export function hashesMatch(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
