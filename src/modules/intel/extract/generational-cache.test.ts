/**
 * The host-assessment cache keeps at most two generations (generational-cache.ts): these tests pin the bound, that
 * an entry still in use survives any number of fills, and that one unused for a whole generation is let go.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { scanIocs } from './extract.fns.js';
import { GenerationalCache } from './generational-cache.js';
import { assessHost, hostCacheStats } from './host.fns.js';

describe('GenerationalCache', () => {
  it('never holds more than two generations', () => {
    const cache = new GenerationalCache<number>(1_000);
    for (let i = 0; i < 10_500; i++) {
      if (cache.get(i & 7, `host-${i}`) === undefined) cache.set(i & 7, `host-${i}`, i);
      expect(cache.size).toBeLessThanOrEqual(2_000);
    }
    expect(cache.size).toBe(1_500);
    // the last two generations are held, everything before them is gone
    expect(cache.get(10_499 & 7, 'host-10499')).toBe(10_499);
    expect(cache.get(9_000 & 7, 'host-9000')).toBe(9_000);
    expect(cache.get(8_999 & 7, 'host-8999')).toBeUndefined();
    expect(cache.get(0, 'host-0')).toBeUndefined();
  });

  it('keeps an entry met again within each generation through many fills, and tells seeds apart', () => {
    const cache = new GenerationalCache<string>(100);
    cache.set(3, 'kept.example', 'kept');
    cache.set(4, 'dropped.example', 'dropped');
    for (let i = 0; i < 1_000; i++) {
      cache.set(0, `filler-${i}`, 'filler');
      if (i % 50 === 0) expect(cache.get(3, 'kept.example')).toBe('kept');
    }
    expect(cache.get(3, 'kept.example')).toBe('kept');
    expect(cache.get(4, 'kept.example')).toBeUndefined();
    expect(cache.get(4, 'dropped.example')).toBeUndefined();
  });
});

describe('assessHost cache', () => {
  it('stays within its bound over more distinct hosts than it holds, and keeps a host still met', () => {
    const first = assessHost('c2.evil-example.ru', false, 'text', false);
    const { max } = hostCacheStats();
    for (let i = 0; i < 2 * max; i++) {
      assessHost(`h${i}.filler-example.com`, false, 'text', false);
      if (i % 5_000 === 0) expect(assessHost('c2.evil-example.ru', false, 'text', false)).toBe(first);
      if (i % 1_000 === 0) expect(hostCacheStats().size).toBeLessThanOrEqual(max);
    }
    expect(hostCacheStats().size).toBeLessThanOrEqual(max);
    expect(hostCacheStats().size).toBeGreaterThan(max / 2);
    expect(assessHost('c2.evil-example.ru', false, 'text', false)).toBe(first);
    // one not met for two generations is assessed again (a new, equal assessment)
    const once = assessHost('once.evil-example.ru', false, 'text', false);
    for (let i = 0; i < max; i++) assessHost(`g${i}.filler-example.com`, false, 'text', false);
    const again = assessHost('once.evil-example.ru', false, 'text', false);
    expect(again).not.toBe(once);
    expect(again).toEqual(once);
  });

  it('does not keep the texts its hosts were cut from alive', { timeout: 60_000 }, () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 10; i++) {
      // a text of its own (the scan flattens it), 1 MB, with one host in it
      const text = `${i} ${'Prose without anything to report. '.repeat(30_000)} beacon to c2-${i}.retained-example.ru`;
      expect(scanIocs(text).size).toBe(1);
    }
    gc();
    // with the host slices as keys the cache held all 10 texts (~10 MB); its own copies are a few hundred bytes
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(4e6);
  });
});
