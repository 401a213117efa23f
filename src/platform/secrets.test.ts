import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSecretBox, loadSecretKey, SecretDecryptionError } from './secrets.js';

describe('secret box', () => {
  const box = createSecretBox(randomBytes(32));

  it('round-trips and never stores the plaintext', () => {
    const stored = box.encrypt('xoxb-very-secret');
    expect(stored).toMatch(/^v1:[0-9a-f]{8}:/);
    expect(stored).not.toContain('xoxb-very-secret');
    expect(box.decrypt(stored)).toBe('xoxb-very-secret');
  });

  it('uses a fresh IV per value', () => {
    expect(box.encrypt('same')).not.toBe(box.encrypt('same'));
  });

  it('detects tampering and a different key', () => {
    const stored = box.encrypt('value');
    const parts = stored.split(':');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => box.decrypt(parts.join(':'))).toThrow(SecretDecryptionError);
    expect(() => createSecretBox(randomBytes(32)).decrypt(stored)).toThrow(/another RAMPART_SECRET_KEY/);
  });

  it('rejects short keys', () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow();
  });
});

describe('loadSecretKey', () => {
  it('generates a key once into the data dir (0600) and reuses it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-key-'));
    const a = loadSecretKey(undefined, dir);
    const b = loadSecretKey(undefined, dir);
    expect(a.equals(b)).toBe(true);
    expect(a.length).toBe(32);
    expect(fs.statSync(path.join(dir, 'secret-key')).mode & 0o777).toBe(0o600);
    fs.rmSync(dir, { recursive: true });
  });

  it('prefers the configured key', () => {
    const configured = randomBytes(32).toString('base64url');
    expect(loadSecretKey(configured, '/nonexistent').equals(Buffer.from(configured, 'base64url'))).toBe(true);
  });
});
