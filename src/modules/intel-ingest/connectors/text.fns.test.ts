import { describe, expect, it } from 'vitest';
import { normaliseText } from './text.fns.js';

/** The rule as first written (each step matching every space and newline): what normaliseText must equal. */
function normaliseTextAsWritten(s: string): string {
  return s
    .replace(/\r\n?/g, '\n')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A deterministic generator (mulberry32): the same strings on every run. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('normaliseText', () => {
  it('equals the rule as first written on whitespace-dense random strings', () => {
    const next = random(50);
    const alphabet = ['a', 'b', ' ', ' ', '\n', '\r', '\t', '\u00a0', '\u2003', '\f', '\v', '\u2028', '.'];
    for (let n = 0; n < 20_000; n++) {
      const length = Math.floor(next() * 24);
      let s = '';
      for (let i = 0; i < length; i++) s += alphabet[Math.floor(next() * alphabet.length)];
      expect(normaliseText(s), JSON.stringify(s)).toBe(normaliseTextAsWritten(s));
    }
  });

  it('equals it on prose as feeds send it', () => {
    const samples = [
      'Title  here\r\n\r\n\r\n  A  paragraph\twith tabs.  \n \n\n\nNext line \u00a0 end ',
      'one two three',
      '',
      '   ',
      '\n\n\n',
      'a \n b \n\n c',
    ];
    for (const s of samples) expect(normaliseText(s)).toBe(normaliseTextAsWritten(s));
  });
});
