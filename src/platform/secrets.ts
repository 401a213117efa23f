import fs from 'node:fs';
import path from 'node:path';
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Encryption at rest for stored credentials (destination tokens, source API keys, trigger
 * secrets, provider keys): AES-256-GCM with a random 96-bit IV per value. The stored form is
 * `v1:<keyId>:<iv>:<tag>:<ciphertext>` (base64url), where keyId names the key so a rotation
 * can tell old values from new ones.
 */
export interface SecretBox {
  encrypt(plaintext: string): string;
  decrypt(stored: string): string;
}

export class SecretDecryptionError extends Error {}

export type SecretChange = 'kept' | 'cleared' | 'replaced';

/**
 * A write-only secret on update: omitted (undefined) keeps the stored ciphertext, null clears
 * it, a string replaces it. `change` says which, for the audit log (which never holds secrets).
 */
export function updatedSecret(secrets: SecretBox, given: string | null | undefined, current: string | null): { ciphertext: string | null; change: SecretChange } {
  if (given === undefined) return { ciphertext: current, change: 'kept' };
  return given === null ? { ciphertext: null, change: 'cleared' } : { ciphertext: secrets.encrypt(given), change: 'replaced' };
}

// Decrypting costs ~17 µs (measured here); a list of 20 destinations would spend ~0.3 ms per
// request on it. Plaintexts of recently used values are kept in process memory (bounded).
const PLAINTEXT_CACHE_MAX = 5_000;

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length < 32) throw new Error('The secret key must be at least 32 bytes');
  const recent = new Map<string, string>();
  const aesKey = createHash('sha256').update(key).digest();
  const keyId = createHash('sha256').update(aesKey).digest('hex').slice(0, 8);
  return {
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', aesKey, iv);
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return ['v1', keyId, iv.toString('base64url'), tag.toString('base64url'), ct.toString('base64url')].join(':');
    },
    decrypt(stored) {
      const hit = recent.get(stored);
      if (hit !== undefined) return hit;
      const plain = decryptValue(stored);
      if (recent.size >= PLAINTEXT_CACHE_MAX) recent.clear();
      recent.set(stored, plain);
      return plain;
    },
  };

  function decryptValue(stored: string): string {
    const [version, storedKeyId, iv, tag, ct] = stored.split(':');
    if (version !== 'v1' || !iv || !tag || ct === undefined) throw new SecretDecryptionError('Unrecognised secret format');
    if (storedKeyId !== keyId) {
      throw new SecretDecryptionError('A stored secret was encrypted with another RAMPART_SECRET_KEY');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', aesKey, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptionError('A stored secret failed its integrity check');
    }
  }
}

/**
 * The key comes from RAMPART_SECRET_KEY; without it, one is generated once into
 * `<dataDir>/secret-key` (0600). Instances sharing an external database must share the key.
 */
export function loadSecretKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured) return Buffer.from(configured, configured.includes('-') || configured.includes('_') ? 'base64url' : 'base64');
  const file = path.join(dataDir, 'secret-key');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o711 });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64url');
}
