import { describe, expect, it } from 'vitest';
import { EventsBodyError, parseEventsBody } from './events-body.fns.js';

const ls = { product: 'Windows', category: 'process_creation' };

describe('parseEventsBody', () => {
  it('reads NDJSON (Vector, Fluent Bit json_lines, Logstash json_lines), skipping blank lines', () => {
    const out = parseEventsBody('{"a":1}\n\n{"a":2,"logsource":{"product":"linux"}}\r\n', ls);
    expect(out).toEqual([
      { logsource: { product: 'windows', category: 'process_creation' }, event: { a: 1 } },
      { logsource: { product: 'linux' }, event: { a: 2, logsource: { product: 'linux' } } },
    ]);
  });

  it('reads a JSON array (Fluent Bit format json) and one pretty-printed object (Logstash format json)', () => {
    expect(parseEventsBody('[{"a":1},{"b":2}]', {}).map((e) => e.event)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(parseEventsBody('{\n  "a": 1\n}', {}).map((e) => e.event)).toEqual([{ a: 1 }]);
  });

  it('refuses what is not a list of objects, naming the line', () => {
    const err = (t: string) => {
      try {
        parseEventsBody(t, {});
      } catch (e) {
        return e instanceof EventsBodyError ? { path: e.path, code: e.code } : e;
      }
      return null;
    };
    expect(err('{"a":1}\n[1]')).toEqual({ path: 'line 2', code: 'invalid_event' });
    expect(err('{"a":1}\n{oops')).toEqual({ path: 'line 2', code: 'invalid_json' });
    expect(err('[1]')).toEqual({ path: '0', code: 'invalid_event' });
    expect(err('  ')).toEqual({ path: '', code: 'empty' });
    expect(err('{"logsource":"windows"}')).toEqual({ path: 'line 1.logsource', code: 'invalid_logsource' });
    expect(err(`{"big":"${'x'.repeat(70_000)}"}`)).toEqual({ path: 'line 1', code: 'event_too_large' });
  });
});
