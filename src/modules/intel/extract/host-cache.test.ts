/**
 * The host-assessment cache (host.fns.ts): these tests pin its bound and that it does not keep the texts its hosts
 * were cut from alive.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { scanIocs } from './extract.fns.js';
import { assessHost, hostCacheStats } from './host.fns.js';

describe('assessHost cache', () => {
  it('stays within its bound over more distinct hosts than it holds', () => {
    const { max } = hostCacheStats();
    for (let i = 0; i < 2.5 * max; i++) {
      assessHost(`h${i}.filler-example.com`, false, 'text', false);
      if (i % 1_000 === 0) expect(hostCacheStats().size).toBeLessThanOrEqual(max);
    }
    expect(hostCacheStats().size).toBeLessThanOrEqual(max);
    expect(hostCacheStats().size).toBeGreaterThan(0);
    // a host met again before the cache fills is the cached assessment, not a new one
    const first = assessHost('c2.evil-example.ru', false, 'text', false);
    expect(assessHost('c2.evil-example.ru', false, 'text', false)).toBe(first);
  });

  it('assesses plain dotted quads without entering them: the cache keeps the hosts whose assessment costs', () => {
    const before = hostCacheStats().size;
    for (let i = 0; i < 1_000; i++) {
      const a = assessHost(`45.${i >> 8}.${i & 255}.7`, false, 'text', false);
      expect(a).toEqual({ kind: 'ipv4', normalized: `45.${i >> 8}.${i & 255}.7` });
    }
    expect(assessHost('192.168.1.1', false, 'url', false)).toMatchObject({ kind: 'ipv4', drop: { category: 'reserved' } });
    expect(assessHost('1.2.3.04', false, 'text', false)).toMatchObject({ kind: 'ipv4', drop: { category: 'invalid' } });
    expect(hostCacheStats().size).toBe(before);
    // a defanged address still goes through the cache (it is refanged first)
    assessHost('45[.]1[.]2[.]3', true, 'text', false);
    expect(hostCacheStats().size).toBe(before >= hostCacheStats().max ? 1 : before + 1);
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
