import type { AlertStatus } from '../alerts/index.js';
import { dispositionOf } from '../alerts/index.js';
import { DISPOSITIONS, type DispositionT, type SummaryDto } from './evaluations.schemas.js';

/**
 * The pure rules of evaluations: a case's verdict, the summary of an evaluation (confusion
 * matrix, rates, percentiles) and the comparison of two.
 */

const STATUS_VERDICT: Record<string, DispositionT> = {
  escalated: 'escalate',
  closed_false_positive: 'false_positive',
  closed_benign: 'benign',
};

/**
 * The verdict of a case's run: the last status the agent set on the shadow alert (escalated,
 * closed_false_positive, closed_benign), else a `disposition` (or `verdict`) field of its
 * structured output naming one of the three, else none. The status wins because it is what the
 * agent would have done to a real alert.
 */
export function verdictOf(statusSet: string | null, structuredOutput: unknown): DispositionT | null {
  if (statusSet && STATUS_VERDICT[statusSet]) return STATUS_VERDICT[statusSet];
  if (structuredOutput && typeof structuredOutput === 'object') {
    const o = structuredOutput as Record<string, unknown>;
    for (const key of ['disposition', 'verdict']) {
      const v = o[key];
      if (typeof v === 'string' && (DISPOSITIONS as readonly string[]).includes(v)) return v as DispositionT;
    }
  }
  return null;
}

/** A closed alert's human disposition as a case label: a true positive is what should have been escalated. */
export function labelOfClosedStatus(status: AlertStatus): DispositionT | null {
  const disposition = dispositionOf(status);
  return disposition === 'true_positive' ? 'escalate' : disposition;
}

/** Nearest-rank percentile of `values` (null when empty). */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((x, y) => x - y);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export interface ResultFacts {
  finished: boolean;
  expected: DispositionT | null;
  verdict: DispositionT | null;
  criteria: ReadonlyArray<{ met: boolean | null }>;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number | null;
}

const ratio = (n: number, d: number): number | null => (d === 0 ? null : Math.round((n / d) * 10_000) / 10_000);

export function summarize(rows: readonly ResultFacts[]): SummaryDto {
  const emptyRow = () => ({ escalate: 0, false_positive: 0, benign: 0, none: 0 });
  const matrix = { escalate: emptyRow(), false_positive: emptyRow(), benign: emptyRow() };
  let finished = 0;
  let labelled = 0;
  let correct = 0;
  let graded = 0;
  let met = 0;
  let input = 0;
  let output = 0;
  const latencies: number[] = [];
  for (const r of rows) {
    input += r.inputTokens;
    output += r.outputTokens;
    if (!r.finished) continue;
    finished++;
    if (r.latencyMs !== null) latencies.push(r.latencyMs);
    for (const c of r.criteria) {
      if (c.met === null) continue;
      graded++;
      if (c.met) met++;
    }
    if (!r.expected) continue;
    labelled++;
    matrix[r.expected][r.verdict ?? 'none']++;
    if (r.verdict === r.expected) correct++;
  }
  const tp = matrix.escalate.escalate;
  const positives = tp + matrix.escalate.false_positive + matrix.escalate.benign + matrix.escalate.none;
  const fp = matrix.false_positive.escalate + matrix.benign.escalate;
  const negatives = ['false_positive', 'benign'].reduce((n, k) => n + Object.values(matrix[k as 'benign']).reduce((a, b) => a + b, 0), 0);
  const precision = ratio(tp, tp + fp);
  const recall = ratio(tp, positives);
  return {
    cases: rows.length,
    finished,
    labelled,
    correct,
    accuracy: ratio(correct, labelled),
    confusionMatrix: matrix,
    truePositiveRate: recall,
    falsePositiveRate: ratio(fp, negatives),
    precision,
    f1: precision !== null && recall !== null && precision + recall > 0 ? Math.round(((2 * precision * recall) / (precision + recall)) * 10_000) / 10_000 : null,
    wouldHaveClosedTruePositive: matrix.escalate.false_positive + matrix.escalate.benign,
    criteria: { graded, met },
    tokens: { input, output, total: input + output },
    latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
  };
}

export interface ComparedCase {
  caseId: string;
  title: string;
  expected: DispositionT | null;
  runId: string | null;
  verdict: DispositionT | null;
  correct: boolean | null;
}

/** Cases of both evaluations (matched by case id) whose verdict differs, in `a`'s order. */
export function changedCases(a: readonly ComparedCase[], b: readonly ComparedCase[]) {
  const inB = new Map(b.map((c) => [c.caseId, c]));
  const side = (c: ComparedCase) => ({ runId: c.runId, verdict: c.verdict, correct: c.correct });
  return a.flatMap((x) => {
    const y = inB.get(x.caseId);
    if (!y || x.verdict === y.verdict) return [];
    const change = y.correct === true && x.correct !== true ? 'fixed' : x.correct === true && y.correct !== true ? 'broke' : 'changed';
    return [{ caseId: x.caseId, title: x.title, expected: x.expected, a: side(x), b: side(y), change: change as 'fixed' | 'broke' | 'changed' }];
  });
}

/** JSONL: one JSON value per non-blank line; a line that does not parse is reported by its number. */
export function parseJsonl(text: string): { values: Array<{ line: number; value: unknown }>; errors: Array<{ line: number; message: string }> } {
  const values: Array<{ line: number; value: unknown }> = [];
  const errors: Array<{ line: number; message: string }> = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (!raw.trim()) return;
    try {
      values.push({ line: i + 1, value: JSON.parse(raw) as unknown });
    } catch {
      errors.push({ line: i + 1, message: 'not valid JSON' });
    }
  });
  return { values, errors };
}
