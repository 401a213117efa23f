import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileSigma } from './sigma-compile.fns.js';
import { convertUnit } from './sigma-convert-correlation.fns.js';
import { isTarget } from './sigma-convert.fns.js';
import { pipelineNames } from './sigma-pipelines.fns.js';
import { hasShared, sharedPath } from '../../../../test/support/shared-dir.js';

// pySigma backends' own expected queries (shared/fixtures/sigma/conversions.jsonl, see its CONVERSIONS.md); skipped when absent.
const FIXTURE = sharedPath('fixtures/sigma/conversions.jsonl');
interface Pair {
  backend: string;
  test: string;
  pipeline: string | null;
  options: Record<string, unknown>;
  rule: string;
  expected: string[];
}
const pairs = !hasShared('fixtures/sigma/conversions.jsonl') ? [] : readFileSync(FIXTURE, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Pair);
const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Why a pair is out of scope (docs/detections.md lists these); null: it must convert exactly. */
function unsupported(p: Pair): string | null {
  if (p.pipeline && !pipelineNames(p.backend as 'kusto').includes(p.pipeline)) return `pipeline ${p.pipeline}`;
  return null;
}

describe.skipIf(pairs.length === 0)('conversion to pySigma backends', () => {
  const supported = pairs.filter((p) => unsupported(p) === null);
  it.each(supported.map((p) => [`${p.backend} ${p.test}`, p] as const))('%s', (_name, p) => {
    expect(isTarget(p.backend)).toBe(true);
    // A multi-document pair (a correlation and its base rules) is one unit and one query.
    const unit = compileSigma(p.rule, { forConversion: true });
    expect(unit.refusals).toEqual([]);
    const queries = convertUnit(unit, p.backend as 'splunk', p.pipeline, p.options.output_format as string | undefined);
    expect(queries.map(norm)).toEqual(p.expected.map(norm));
  });

  it('counts what is left out, per backend', () => {
    const left: Record<string, Record<string, number>> = {};
    for (const p of pairs) {
      const why = unsupported(p);
      if (!why) continue;
      (left[p.backend] ??= {})[why] = (left[p.backend]![why] ?? 0) + 1;
    }
    console.log('conversions left out', JSON.stringify(left), 'supported', supported.length, 'of', pairs.length);
    expect(supported.length).toBe(105);
    expect(left).toEqual({});
  });
});
