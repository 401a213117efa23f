import { describe, expect, it } from 'vitest';
import { Collector } from './collector.js';

describe('Collector deduplication (its own hash table)', () => {
  it('keeps one indicator per (kind, normalized value) through many table growths, every occurrence as a span', () => {
    const text = 'x'.repeat(100_000);
    const c = new Collector(text, false);
    const n = 20_000;
    // each value twice (the second time later in the text), and the same strings under a second kind
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < n; i++) {
        const start = pass * 50_000 + i;
        c.add('domain', start, start + 1, `host${i}.example.net`, false);
        if (i % 10 === 0) c.add('filename', start, start + 1, `host${i}.example.net`, false);
      }
    }
    const { iocs } = c.result();
    expect(iocs).toHaveLength(n + n / 10);
    const domains = iocs.filter((i) => i.kind === 'domain');
    expect(domains).toHaveLength(n);
    expect(domains.every((d, k) => d.normalizedValue === `host${k}.example.net` && d.spans.length === 2 && d.spans[1]!.start === d.spans[0]!.start + 50_000)).toBe(true);
    expect(iocs.filter((i) => i.kind === 'filename').every((f) => f.spans.length === 2)).toBe(true);
  });

  it('a value equal to another but built differently (sliced, concatenated) is the same indicator', () => {
    const text = 'evil.example.org and evil.example.org';
    const c = new Collector(text, false);
    c.add('domain', 0, 16, text.slice(0, 16), false);
    c.add('domain', 21, 37, ['evil', 'example', 'org'].join('.'), true);
    const { iocs } = c.result();
    expect(iocs).toHaveLength(1);
    expect(iocs[0]).toMatchObject({ normalizedValue: 'evil.example.org', defanged: true, spans: [{ start: 0, end: 16 }, { start: 21, end: 37 }] });
  });
});
