import { jsonDepthExceeds, MAX_JSON_DEPTH, sanitizeWebhookValue } from '../../platform/http/hostile-input.js';
import { normalizeLogsource, type DeclaredEvent, type Logsource } from './detect-match.fns.js';

/**
 * A body of events as log shippers send them, to events with their declared logsource:
 * - a JSON array of objects (Fluent Bit `http` output `format json`, Vector `http` sink with
 *   `encoding.codec = "json"` and `framing.method = "character_delimited"`… or a batch written by hand);
 * - newline-delimited JSON objects (NDJSON / JSON Lines: Vector `framing.method = "newline_delimited"`,
 *   Fluent Bit `format json_lines`, Logstash `http` output `format => "json_lines"`); blank lines are skipped;
 * - one JSON object (Logstash `format => "json"`, one event per request).
 * An event may declare its own logsource in a top-level `logsource` object, which wins over the
 * batch's for that event (a shipper adds it per stream: Vector `.logsource.product = "windows"`).
 */

export const EVENT_LIMITS = {
  /** Events in one request. */
  maxEvents: 10_000,
  /** Bytes of one event as JSON. */
  maxEventBytes: 64 * 1024,
  /** Bytes of a gzip body once inflated. */
  maxInflatedBytes: 32 * 1024 * 1024,
} as const;

export class EventsBodyError extends Error {
  constructor(
    message: string,
    readonly path: string,
    readonly code: string,
  ) {
    super(message);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseJson(text: string, path: string): unknown {
  if (jsonDepthExceeds(text)) throw new EventsBodyError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`, path, 'too_deep');
  try {
    return JSON.parse(text, (k, v) => (k === '__proto__' ? undefined : v));
  } catch (err) {
    throw new EventsBodyError(`Not valid JSON: ${(err as Error).message}`, path, 'invalid_json');
  }
}

export function declaredLogsource(v: unknown, path: string): Logsource | null {
  if (v === undefined) return null;
  if (!isRecord(v)) throw new EventsBodyError('logsource must be an object {product, category, service}', `${path}.logsource`, 'invalid_logsource');
  const out: Logsource = {};
  for (const k of ['product', 'category', 'service'] as const) {
    const x = v[k];
    if (x === undefined || x === null) continue;
    if (typeof x !== 'string' || x.length > 200) throw new EventsBodyError(`logsource.${k} must be a string of at most 200 characters`, `${path}.logsource.${k}`, 'invalid_logsource');
    out[k] = x;
  }
  return normalizeLogsource(out);
}

/** The events of `text`, each with its logsource (its own, else `batch`). */
export function parseEventsBody(text: string, batch: Logsource): DeclaredEvent[] {
  const trimmed = text.trim();
  if (!trimmed) throw new EventsBodyError('No events in the body', '', 'empty');
  let values: Array<{ value: unknown; path: string; bytes: number }>;
  if (trimmed.startsWith('[')) {
    const parsed = parseJson(trimmed, '');
    if (!Array.isArray(parsed)) throw new EventsBodyError('Expected a JSON array of events', '', 'invalid_json');
    if (parsed.length > EVENT_LIMITS.maxEvents) throw new EventsBodyError(`More than ${EVENT_LIMITS.maxEvents} events in one request; send smaller batches`, '', 'too_many_events');
    values = parsed.map((value, i) => ({ value, path: String(i), bytes: -1 }));
  } else {
    const lines = trimmed.split('\n');
    const nonBlank = lines.map((l, i) => ({ l: l.trim(), i })).filter((x) => x.l);
    // One pretty-printed object spans lines: then the body is one event.
    const firstParses = (() => {
      try {
        JSON.parse(nonBlank[0]!.l);
        return true;
      } catch {
        return false;
      }
    })();
    if (!firstParses && trimmed.startsWith('{')) {
      values = [{ value: parseJson(trimmed, ''), path: '0', bytes: trimmed.length }];
    } else {
      if (nonBlank.length > EVENT_LIMITS.maxEvents) throw new EventsBodyError(`More than ${EVENT_LIMITS.maxEvents} events in one request; send smaller batches`, '', 'too_many_events');
      values = nonBlank.map(({ l, i }) => ({ value: parseJson(l, `line ${i + 1}`), path: `line ${i + 1}`, bytes: l.length }));
    }
  }
  const defaults = normalizeLogsource(batch);
  return values.map(({ value, path, bytes }) => {
    if (!isRecord(value)) throw new EventsBodyError('An event must be a JSON object', path, 'invalid_event');
    const size = bytes >= 0 ? bytes : JSON.stringify(value).length;
    if (size > EVENT_LIMITS.maxEventBytes) throw new EventsBodyError(`Event larger than ${EVENT_LIMITS.maxEventBytes} bytes`, path, 'event_too_large');
    const own = declaredLogsource(value.logsource, path);
    return { logsource: own ?? defaults, event: sanitizeWebhookValue(value) as Record<string, unknown> };
  });
}

/** What a fast-path body may not hold: escapes PostgreSQL text cannot store (NUL, a surrogate: maybe lone) or a `__proto__` key. */
const NEEDS_SANITIZING = /\\u(?:0000|[dD][89a-fA-F])|"__proto__"/;

/**
 * A batch as the worker reads it (detect.repo.ts `declaredEventsOf`): the batch's logsource and
 * its events, each an event as sent (its own `logsource` key, if any, is read again by the worker).
 */
export interface StoredEvents {
  count: number;
  /** `{"logsource": {...}, "events": [<line 1>, <line 2>, …]}`: the lines' text as sent, not re-serialised. */
  json: string;
}

/**
 * The fast path of `POST /api/events` for NDJSON, the log shippers' format: each line is checked
 * (it parses, it is one object, its size, its own logsource) and then kept as the text it came as,
 * joined into the stored JSON, instead of being walked for unstorable characters and printed again
 * (JSON.parse without a reviver, no sanitizing walk, no JSON.stringify: docs/performance-history.md,
 * "drain"). Answers null whenever the body is anything else or anything is off — a JSON array, a
 * pretty-printed object, a line that fails a check, an escape that needs sanitizing, a `__proto__`
 * key — and the caller takes the full path (`parseEventsBody`), which accepts the same bodies and
 * names the exact error. So both paths accept and refuse the same bodies, and count the same events.
 */
export function ndjsonFastPath(text: string, batch: Logsource): StoredEvents | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') || NEEDS_SANITIZING.test(trimmed) || jsonDepthExceeds(trimmed)) return null;
  const kept: string[] = [];
  for (const raw of trimmed.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    if (line.charCodeAt(0) !== 123 /* { */ || line.length > EVENT_LIMITS.maxEventBytes || kept.length >= EVENT_LIMITS.maxEvents) return null;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return null;
    }
    if (!isRecord(value)) return null;
    if (value.logsource !== undefined) {
      try {
        declaredLogsource(value.logsource, '');
      } catch {
        return null;
      }
    }
    kept.push(line);
  }
  if (kept.length === 0) return null;
  return { count: kept.length, json: `{"logsource":${JSON.stringify(normalizeLogsource(batch))},"events":[${kept.join(',')}]}` };
}
