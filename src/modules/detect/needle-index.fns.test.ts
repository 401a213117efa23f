import { describe, expect, it } from 'vitest';
import { NeedleIndex } from './needle-index.fns.js';

const found = (index: NeedleIndex, text: string) => {
  const ids = new Set<number>();
  index.scan(text, (id) => ids.add(id));
  return [...ids].sort((a, b) => a - b);
};

describe('NeedleIndex', () => {
  it('finds every needle that occurs, overlapping and nested ones included, as String.includes would', () => {
    const needles = ['he', 'she', 'his', 'hers', '\\powershell.exe', 'shell', 'x'];
    const index = new NeedleIndex(needles);
    expect(found(index, 'ushers')).toEqual([0, 1, 3]);
    expect(found(index, 'c:\\windows\\system32\\windowspowershell\\v1.0\\powershell.exe -enc')).toEqual([0, 1, 4, 5, 6]);
    expect(found(index, '')).toEqual([]);
    // Against includes on random text.
    const words = ['ab', 'abc', 'bca', 'caa', 'a', 'cc', 'bab'];
    const idx = new NeedleIndex(words);
    let seed = 7;
    for (let n = 0; n < 200; n++) {
      let text = '';
      for (let i = 0; i < 30; i++) text += 'abc'[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % 3];
      expect(found(idx, text)).toEqual(words.map((w, i) => (text.includes(w) ? i : -1)).filter((i) => i >= 0));
    }
  });
});
