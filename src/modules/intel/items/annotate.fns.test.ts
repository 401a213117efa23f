import { describe, expect, it } from 'vitest';
import { annotateText } from './annotate.fns.js';

describe('annotateText', () => {
  it('places each indicator at its exact span, every occurrence, defanged ones included', () => {
    const text = 'C2 at 45.77.12.9 and evil-updates[.]com; again 45.77.12.9. See CVE-2024-3400.';
    const { indicators } = annotateText(text);
    for (const i of indicators) expect(text.slice(i.start, i.end)).toBe(i.value);
    expect(indicators.map((i) => [i.type, i.normalizedValue])).toEqual([
      ['ipv4', '45.77.12.9'],
      ['domain', 'evil-updates.com'],
      ['ipv4', '45.77.12.9'],
    ]);
  });

  it('lists rejected candidates with the reason and their span', () => {
    const text = 'Internal host 10.0.0.5 was scanned.';
    const { indicators, rejected } = annotateText(text);
    expect(indicators).toEqual([]);
    expect(rejected).toHaveLength(1);
    expect(text.slice(rejected[0]!.start, rejected[0]!.end)).toBe('10.0.0.5');
    expect(rejected[0]!.reason).toMatch(/\w/);
  });
});
