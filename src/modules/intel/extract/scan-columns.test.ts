/**
 * The collector's columns are reused from one scan to the next (scan-columns.ts). These tests pin what reuse must
 * not change: a finished extraction keeps its results while later scans run, a scan after a larger one sees none of
 * its entries, and a scan that is never finished (or runs inside another) does not share columns with any other.
 */
import { describe, expect, it } from 'vitest';
import { Collector } from './collector.js';
import { extractIocs, scanIocs } from './extract.fns.js';
import { KeyedIndex } from './keyed-index.js';
import { spareCapacity } from './scan-columns.js';

const REPEATS = 'Beacons to evil-c2.net and 45.77.12.9, again evil-c2.net, then 45.77.12.9 and hxxp://evil-c2[.]net/a.';
const DENSE = Array.from({ length: 3_000 }, (_, i) => `host${i}.bad-domain.org 10.0.${i % 250}.1 198.51.100.${i % 250} AS${i + 70000}`).join('\n');

describe('collector columns reused between scans', () => {
  it('leaves a finished extraction unchanged by the scans after it (its occurrences are its own copy)', () => {
    // read only after the later scans: an extraction builds its spans from the occurrences on first use
    const first = scanIocs(REPEATS);
    expect(first.spanCount(0)).toBeGreaterThan(1);
    scanIocs(DENSE);
    scanIocs(REPEATS.replace(/evil-c2/g, 'other-c2'));
    expect(JSON.stringify(first.toResult())).toBe(JSON.stringify(extractIocs(REPEATS)));
  });

  it('gives a small text the same result after a scan with thousands of indicators and drops as before it', () => {
    const alone = JSON.stringify(extractIocs(REPEATS));
    const dense = extractIocs(DENSE);
    expect(dense.iocs.length).toBeGreaterThan(3_000);
    expect(dense.dropped.length).toBeGreaterThan(1_000);
    expect(JSON.stringify(extractIocs(REPEATS))).toBe(alone);
    expect(JSON.stringify(extractIocs('no indicators here'))).toBe(JSON.stringify({ iocs: [], dropped: [] }));
  });

  it('keeps a scan that is never finished, and one inside it, apart from every other scan', () => {
    const expected = JSON.stringify(extractIocs(REPEATS));
    const abandoned = new Collector(REPEATS, false);
    abandoned.add('domain', 0, 4, 'left-behind.example.org', false);
    expect(JSON.stringify(extractIocs(REPEATS))).toBe(expected);
    const outer = new Collector('x'.repeat(40), false);
    outer.add('domain', 0, 10, 'outer.example.org', false);
    expect(JSON.stringify(extractIocs(REPEATS))).toBe(expected);
    outer.add('domain', 20, 30, 'outer-two.example.org', false);
    expect(outer.result().iocs.map((i) => i.normalizedValue)).toEqual(['outer.example.org', 'outer-two.example.org']);
    expect(JSON.stringify(extractIocs(REPEATS))).toBe(expected);
  });
});

describe('KeyedIndex.clear', () => {
  it('forgets every key, in any table size, and indexes new keys from 0 again', () => {
    const index = new KeyedIndex(8);
    for (let i = 0; i < 5_000; i++) expect(index.insert(i % 3, `key-${i}`)).toBe(i);
    expect(index.find(1, 'key-4')).toBe(4);
    index.clear();
    expect(index.size).toBe(0);
    for (let i = 0; i < 5_000; i++) expect(index.find(i % 3, `key-${i}`)).toBe(-1);
    expect(index.insert(2, 'key-5')).toBe(0);
    expect(index.insert(1, 'key-4')).toBe(1);
    expect(index.find(1, 'key-4')).toBe(1);
    expect(index.find(2, 'key-5')).toBe(0);
    expect(index.find(1, 'key-5')).toBe(-1);
  });
});

/** `count` distinct public IPv4 addresses, one per line (each an indicator of its own). */
const addresses = (count: number): string => Array.from({ length: count }, (_, i) => `45.${1 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`).join('\n');

describe('columns kept between scans are capped', () => {
  it('lets go of columns that grew past 65,536 indicators, and keeps a smaller scan’s', () => {
    const big = scanIocs(addresses(70_000));
    expect(big.size).toBe(70_000);
    expect(spareCapacity()).toBeNull();
    scanIocs(REPEATS);
    const small = spareCapacity();
    expect(small).not.toBeNull();
    expect(small).toBeLessThanOrEqual(256);
    expect(scanIocs(addresses(5_000)).size).toBe(5_000);
    expect(spareCapacity()).toBeGreaterThanOrEqual(5_000);
    expect(spareCapacity()).toBeLessThanOrEqual(65_536);
  });
});
