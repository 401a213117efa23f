import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMPTY_CATALOG, extractIocs } from '../../intel/index.js';
import { emptyIocLists, IOC_LIST_NAMES, processItem } from './process.fns.js';
import { hasShared, sharedPath } from '../../../../test/support/shared-dir.js';

const FIXTURES = sharedPath('fixtures');

describe('iocs lists', () => {
  it('has one empty list per list name, in the names’ order (the order of the stored JSON keys)', () => {
    expect(Object.keys(emptyIocLists())).toEqual(IOC_LIST_NAMES);
    expect(Object.values(emptyIocLists()).every((l) => Array.isArray(l) && l.length === 0)).toBe(true);
  });
});

// Skipped when the team's shared folder is absent.
describe.skipIf(!hasShared('fixtures/ioc-extraction/ninoseki/input.txt'))('extracted indicators from the compact results', () => {
  // A real report-like text (ninoseki/ioc-extractor's test input, MIT: shared/fixtures/ioc-extraction/ninoseki/LICENSE).
  const text = fs.readFileSync(path.join(FIXTURES, 'ioc-extraction/ninoseki/input.txt'), 'utf8');
  const title = 'Campaign update: hxxp://evil[.]example-c2[.]ru/a and CVE-2021-44228, T1059.001 via 45.77.12.9 (10.0.0.1)';
  const result = processItem({ title, contentText: text, url: null, tags: [], structuredIndicators: [], publishedAt: null, now: new Date('2026-01-01T00:00:00Z') }, EMPTY_CATALOG);

  it('stores what the object API reports: indicators of text then title, dropped candidates, CVEs', () => {
    const objects = [extractIocs(text), extractIocs(title)];
    const expected = new Map<string, { type: string; value: string; normalizedValue: string; confidence: number }>();
    for (const ioc of objects.flatMap((r) => r.iocs)) {
      if (ioc.kind === 'cve' || ioc.kind === 'attack-technique') continue;
      const key = `${ioc.kind}\u0000${ioc.normalizedValue}`;
      const prev = expected.get(key);
      if (!prev || prev.confidence < ioc.confidence) expected.set(key, { type: ioc.kind, value: ioc.value, normalizedValue: ioc.normalizedValue, confidence: ioc.confidence });
    }
    expect(expected.size).toBeGreaterThan(20);
    expect(result.indicators.map(({ type, value, normalizedValue, confidence }) => ({ type, value, normalizedValue, confidence }))).toEqual([...expected.values()]);
    expect(result.dropped).toEqual(objects.flatMap((r) => r.dropped).map((d) => ({ type: d.kind, value: d.value, reason: d.reason })));
    expect(result.dropped.length).toBeGreaterThan(5);
    expect(result.cves).toContain('CVE-2021-44228');
  });

  it('each extracted indicator has a passage around its first occurrence', () => {
    for (const ioc of extractIocs(text).iocs) {
      if (ioc.kind === 'cve' || ioc.kind === 'attack-technique') continue;
      const first = ioc.spans[0]!;
      expect(result.passages.some((p) => p.charSpan.start <= first.start && p.charSpan.end >= first.end && text.slice(p.charSpan.start, p.charSpan.end) === p.text)).toBe(true);
    }
  });
});
