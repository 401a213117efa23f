import { describe, expect, it } from 'vitest';
import { declaredEventsOf } from './detect.repo.js';
import { EventsBodyError, ndjsonFastPath, parseEventsBody } from './events-body.fns.js';

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

describe('ndjsonFastPath', () => {
  it('keeps NDJSON lines as sent, and the worker reads the same events the full path would store', () => {
    const bodies = [
      '{"a":1}\n\n{"a":2,"logsource":{"product":"Linux"}}\r\n',
      '{"CommandLine":"powershell -enc \\"x\\"","n":1.50,"u":"caf\\u00e9 ✓"}',
      '{"logsource":{}, "nested":{"deep":[1,{"b":null}]}}\n{"z":true}',
    ];
    for (const body of bodies) {
      const fast = ndjsonFastPath(body, ls);
      expect(fast, body).not.toBeNull();
      const full = parseEventsBody(body, ls);
      expect(fast!.count).toBe(full.length);
      expect(declaredEventsOf(JSON.parse(fast!.json))).toEqual(full);
    }
    // Not re-serialised: the line's own text (spacing, number spelling) is in the stored JSON.
    expect(ndjsonFastPath('{"n":1.50,  "a" : 1}', {})!.json).toContain('{"n":1.50,  "a" : 1}');
  });

  it('leaves every other body to the full path, which names the error or sanitizes', () => {
    for (const body of [
      '[{"a":1}]', // an array
      '{\n  "a": 1\n}', // one pretty-printed object
      '{"a":1}\n{oops', // invalid JSON
      '{"a":1}\n[1]', // not an object
      '{"logsource":"windows"}', // a bad logsource
      `{"big":"${'x'.repeat(70_000)}"}`, // too large
      '{"a":"nul \\u0000 here"}', // a NUL escape PostgreSQL text cannot store
      '{"a":"lone \\ud800 surrogate"}', // a (maybe lone) surrogate escape
      '{"__proto__":{"polluted":true}}', // a key the full path drops
      Array.from({ length: 10_001 }, () => '{"a":1}').join('\n'), // too many events
      '   ',
    ]) expect(ndjsonFastPath(body, ls), body).toBeNull();
  });
});
