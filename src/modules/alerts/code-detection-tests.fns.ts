import { parseAllDocuments } from 'yaml';
import type { CompiledUnit } from './sigma/sigma-compile.fns.js';
import type { JsonEvent } from './sigma/sigma-event.fns.js';
import { readTests, runTests } from './sigma/sigma-tests.fns.js';

/**
 * A stored detection's own tests (GET /api/code-detections/{id}/tests): the `tests:` key its Sigma
 * text carries, as `rampart detections test` reads a plain Sigma file (any document of the unit
 * may hold it; config apply writes `spec.tests` there). They are run on every read against the
 * rule as stored: rule and events are both in the text, so the result of the last run is the
 * result of this one, and nothing needs keeping.
 */
export interface SavedTestResult {
  index: number;
  name: string;
  expect: 'match' | 'no_match';
  passed: boolean;
  /** The event that decided a failure (its position in the test's events). */
  failingIndex: number | null;
  events: Array<{ index: number; matched: boolean; matchedSelections: string[] }>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The raw `tests:` entries of every document of the text (a YAML error leaves them out: the compiler reports it). */
export function rawTestsOf(text: string): unknown[] {
  const out: unknown[] = [];
  for (const doc of parseAllDocuments(text, { uniqueKeys: true })) {
    if (doc.errors.length > 0) continue;
    const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (isRecord(value) && Array.isArray(value.tests)) out.push(...value.tests);
  }
  return out;
}

/**
 * Each test with its verdict and, per event, whether the unit's detection rules matched it and
 * which selections did (for a correlation test the verdict is the window's; the per-event lines
 * say which base-rule events fed it).
 */
export function runSavedTests(unit: CompiledUnit, text: string): { tests: SavedTestResult[]; errors: string[] } {
  const { tests, errors } = readTests(rawTestsOf(text));
  const outcomes = runTests(unit, tests);
  return {
    errors,
    tests: tests.map((t, i) => {
      const events: JsonEvent[] = t.events ?? (t.event ? [t.event] : []);
      return {
        index: i,
        name: t.name,
        expect: t.expect,
        passed: outcomes[i]!.passed,
        failingIndex: outcomes[i]!.failingIndex,
        events: events.map((event, index) => {
          const explained = unit.rules.map((r) => r.explain(event));
          return { index, matched: explained.some((e) => e.matched), matchedSelections: [...new Set(explained.flatMap((e) => e.matchedSelections))] };
        }),
      };
    }),
  };
}
