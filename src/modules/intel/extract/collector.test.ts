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

  it('occurrences recorded out of order: the first occurrence and the spans read by start, from columns and objects alike', () => {
    const text = 'a.example.net b.example.net a.example.net a.example.net';
    const c = new Collector(text, false);
    c.add('domain', 42, 55, 'a.example.net', false);
    c.add('domain', 14, 27, 'b.example.net', false);
    c.add('domain', 0, 13, 'a.example.net', true);
    c.add('domain', 28, 41, 'a.example.net', false);
    c.drop('ipv4', 30, 31, 'test reason', 'ambiguous');
    c.drop('ipv4', 2, 3, 'earlier', 'invalid');
    const x = c.finish();
    expect(c.finish()).toBe(x);
    expect(x.size).toBe(2);
    expect([x.normalizedValue(0), x.start(0), x.end(0), x.spanCount(0), x.defanged(0)]).toEqual(['a.example.net', 0, 13, 3, true]);
    expect([0, 1, 2].map((k) => [x.spanStart(0, k), x.spanEnd(0, k)])).toEqual([[0, 13], [28, 41], [42, 55]]);
    expect(x.spans(0)).toEqual([{ start: 0, end: 13 }, { start: 28, end: 41 }, { start: 42, end: 55 }]);
    expect([x.normalizedValue(1), x.spanCount(1), x.spanStart(1, 0)]).toEqual(['b.example.net', 1, 14]);
    expect([x.droppedReason(0), x.droppedCategory(0), x.droppedValue(0), x.droppedReason(1)]).toEqual(['earlier', 'invalid', 'e', 'test reason']);
    expect(c.result().iocs[0]).toMatchObject({ value: 'a.example.net', spans: x.spans(0) });
  });
});
