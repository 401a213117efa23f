import { describe, expect, it } from 'vitest';
import { changedCases, parseJsonl, percentile, summarize, verdictOf, type ResultFacts } from './evaluations.fns.js';

const fact = (expected: ResultFacts['expected'], verdict: ResultFacts['verdict'], latencyMs = 100): ResultFacts => ({ finished: true, expected, verdict, criteria: [], inputTokens: 10, outputTokens: 5, latencyMs });

describe('evaluations rules', () => {
  it('the status set on the shadow alert wins over the structured output; a non-verdict status falls back to it', () => {
    expect(verdictOf('escalated', { disposition: 'benign' })).toBe('escalate');
    expect(verdictOf('in_progress', { disposition: 'benign' })).toBe('benign');
    expect(verdictOf(null, { verdict: 'false_positive' })).toBe('false_positive');
    expect(verdictOf(null, { disposition: 'maybe' })).toBeNull();
    expect(verdictOf(null, null)).toBeNull();
  });

  it('summarizes a confusion matrix with rates, the closed true positives and percentiles', () => {
    const s = summarize([fact('escalate', 'escalate', 10), fact('escalate', 'benign', 20), fact('benign', 'escalate', 30), fact('benign', 'benign', 40), fact('false_positive', null, 50), { ...fact('benign', null), finished: false }]);
    expect(s.confusionMatrix.escalate).toEqual({ escalate: 1, false_positive: 0, benign: 1, none: 0 });
    expect(s.confusionMatrix.false_positive).toEqual({ escalate: 0, false_positive: 0, benign: 0, none: 1 });
    expect(s).toMatchObject({ cases: 6, finished: 5, labelled: 5, correct: 2, accuracy: 0.4, truePositiveRate: 0.5, falsePositiveRate: 0.3333, precision: 0.5, f1: 0.5, wouldHaveClosedTruePositive: 1 });
    expect(s.latencyMs).toEqual({ p50: 30, p95: 50 });
    expect(s.tokens).toEqual({ input: 60, output: 30, total: 90 });
    expect(percentile([], 50)).toBeNull();
  });

  it('lists changed verdicts as fixed, broke or changed', () => {
    const c = (caseId: string, verdict: ResultFacts['verdict'], correct: boolean | null) => ({ caseId, title: caseId, expected: 'escalate' as const, runId: null, verdict, correct });
    expect(changedCases([c('1', 'benign', false), c('2', 'escalate', true), c('3', 'benign', false)], [c('1', 'escalate', true), c('2', 'benign', false), c('3', 'benign', false)]).map((x) => [x.caseId, x.change])).toEqual([
      ['1', 'fixed'],
      ['2', 'broke'],
    ]);
  });

  it('parses JSONL line by line', () => {
    expect(parseJsonl('{"a":1}\n\n{bad\r\n[2]\n')).toEqual({ values: [{ line: 1, value: { a: 1 } }, { line: 4, value: [2] }], errors: [{ line: 3, message: 'not valid JSON' }] });
  });
});
