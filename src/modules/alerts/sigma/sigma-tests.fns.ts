import type { CompiledUnit } from './sigma-compile.fns.js';
import { CorrelationWindow, eventTime } from './sigma-correlation.fns.js';
import { EventView, type JsonEvent } from './sigma-event.fns.js';

/**
 * Tests as code: `tests: [{name, event | events, expect: match | no_match}]` next to a rule.
 * For detection rules each event is one case (`match`: every event matches; `no_match`: none
 * does). For a unit with correlation rules the events are one sequence, in order, fed to the
 * correlation windows (each event's time from its timestamp field, else one second apart):
 * `match` means a correlation fires.
 */
export interface DetectionTest {
  name: string;
  event?: JsonEvent;
  events?: JsonEvent[];
  expect: 'match' | 'no_match';
}

export interface TestOutcome {
  name: string;
  passed: boolean;
  /** The first event that decided a failure (its position in the test's events). */
  failingIndex: number | null;
  failingEvent: JsonEvent | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The tests of a document, checked for shape; a message per malformed entry. */
export function readTests(raw: unknown): { tests: DetectionTest[]; errors: string[] } {
  if (raw === undefined) return { tests: [], errors: [] };
  if (!Array.isArray(raw)) return { tests: [], errors: ['tests must be a list of {name, event | events, expect}'] };
  const tests: DetectionTest[] = [];
  const errors: string[] = [];
  raw.forEach((t, i) => {
    if (!isRecord(t) || typeof t.name !== 'string' || (t.expect !== 'match' && t.expect !== 'no_match')) {
      errors.push(`tests[${i}]: needs a name and expect: match | no_match`);
      return;
    }
    const events = t.events !== undefined ? t.events : t.event !== undefined ? [t.event] : null;
    if (!Array.isArray(events) || events.length === 0 || !events.every(isRecord)) {
      errors.push(`tests[${i}] (${t.name}): needs event (a JSON object) or events (a list of them)`);
      return;
    }
    tests.push({ name: t.name, events: events as JsonEvent[], expect: t.expect });
  });
  return { tests, errors };
}

export function runTests(unit: CompiledUnit, tests: DetectionTest[]): TestOutcome[] {
  return tests.map((t) => {
    const events = t.events ?? (t.event ? [t.event] : []);
    if (unit.correlations.length > 0) {
      const windows = unit.correlations.map((c) => new CorrelationWindow(c));
      let firedAt: number | null = null;
      events.forEach((event, i) => {
        const ts = eventTime(event, i * 1000);
        const view = new EventView(event);
        for (const w of windows)
          for (const rule of w.correlation.rules) if (rule.matches(view) && w.add(rule, event, ts) && firedAt === null) firedAt = i;
      });
      const passed = (firedAt !== null) === (t.expect === 'match');
      const at = passed ? null : firedAt ?? events.length - 1;
      return { name: t.name, passed, failingIndex: at, failingEvent: at === null ? null : events[at] ?? null };
    }
    const wrong = events.findIndex((e) => {
      const view = new EventView(e);
      return unit.rules.some((r) => r.matches(view)) !== (t.expect === 'match');
    });
    return { name: t.name, passed: wrong < 0, failingIndex: wrong < 0 ? null : wrong, failingEvent: wrong < 0 ? null : events[wrong]! };
  });
}
