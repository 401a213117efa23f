import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256 } from './validate.fns.js';

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
