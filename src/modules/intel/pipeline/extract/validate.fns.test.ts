import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nextLongRun } from './patterns.js';
import { sha256 } from './validate.fns.js';

/** A seeded generator, so a failure is reproducible. */
function prng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x / 0x80000000;
  };
}

describe('hand-written scans and hashes (equal to what they replace)', () => {
  it('sha256 equals node:crypto on every length from 0 to 300 bytes (one to six blocks, padding edges)', () => {
    const r = prng(11);
    for (let len = 0; len <= 300; len++) {
      const msg = Uint8Array.from({ length: len }, () => Math.floor(r() * 256));
      expect(Buffer.from(sha256(msg)).toString('hex')).toBe(createHash('sha256').update(msg).digest('hex'));
    }
  });

  it('nextLongRun finds what /[0-9][a-z0-9]{15}/gi finds, from any position (ASCII only, as the regex)', () => {
    const re = /[0-9][a-z0-9]{15}/gi;
    const viaRegex = (t: string, from: number): number => {
      re.lastIndex = from;
      return re.test(t) ? re.lastIndex - 16 : -1;
    };
    const r = prng(3);
    // mostly alphanumerics (long runs), plus separators and non-ASCII letters whose case folds to ASCII
    const common = 'aZ09_ -.';
    const all = `${common}ſKİıéb7F`;
    for (let i = 0; i < 50_000; i++) {
      let t = '';
      const len = Math.floor(r() * 60);
      for (let j = 0; j < len; j++) t += r() < 0.8 ? common[Math.floor(r() * 4)] : all[Math.floor(r() * all.length)];
      const from = Math.floor(r() * (len + 1));
      expect(nextLongRun(t, from), JSON.stringify([t, from])).toBe(viaRegex(t, from));
    }
  });
});
