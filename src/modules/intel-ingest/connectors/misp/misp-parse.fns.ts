import type { z } from 'zod';
import { ConnectorParseError } from '../connector.js';
import { MispEventSchema, mispUnixSeconds, type MispEvent, type MispFeedManifestEntry } from './misp.schemas.js';

/**
 * Parsing of MISP documents into validated {@link MispEvent}s. Everything here is pure: the
 * caller fetches and `JSON.parse`s, these functions only judge the shape.
 */

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_MESSAGE = 300;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') {
    const keys = Object.keys(v).slice(0, 6);
    return keys.length ? `an object with keys ${keys.map((k) => JSON.stringify(k)).join(', ')}` : 'an empty object';
  }
  return `a ${typeof v}`;
}

function clip(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > MAX_MESSAGE ? `${t.slice(0, MAX_MESSAGE - 1)}…` : t;
}

/**
 * The message of a MISP error body (`{"name", "message", "url"}`, optionally with `errors`), or
 * null when `v` does not look like one. MISP sends these with 4xx/5xx (bad API key, ACL, bad filter).
 */
export function mispErrorMessage(v: unknown): string | null {
  if (!isRecord(v) || 'Event' in v || 'response' in v) return null;
  const message = typeof v.message === 'string' && v.message.trim() ? v.message : null;
  const errors = v.errors;
  let detail: string | null = null;
  if (typeof errors === 'string' && errors.trim()) detail = errors;
  else if (isRecord(errors) || Array.isArray(errors)) detail = JSON.stringify(errors);
  if (message === null && detail === null) return null;
  if (message === null) return clip(detail ?? '');
  return clip(detail !== null && detail !== message ? `${message} (${detail})` : message);
}

function formatPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(root)';
}

function formatIssues(prefix: string, error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((i) => `${formatPath(prefix, i.path)}: ${i.message}`);
  const more = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : '';
  return shown.join('; ') + more;
}

function validateEvent(v: unknown, where: string, what: string): MispEvent {
  const r = MispEventSchema.safeParse(v);
  if (!r.success) throw new ConnectorParseError(`${what} has an invalid event: ${formatIssues(where, r.error)}`);
  return r.data;
}

/** A bare event object (no `{"Event": …}` wrapper), as in `/events/index` rows. */
function looksLikeEvent(v: Record<string, unknown>): boolean {
  return typeof v.uuid === 'string' && ('info' in v || 'Attribute' in v || 'timestamp' in v);
}

function eventFromItem(item: unknown, where: string, what: string): MispEvent {
  if (isRecord(item)) {
    if ('Event' in item) {
      if (!isRecord(item.Event)) {
        throw new ConnectorParseError(`${what}: ${where ? `${where}.` : ''}Event is ${describe(item.Event)}, expected an object`);
      }
      return validateEvent(item.Event, where ? `${where}.Event` : 'Event', what);
    }
    if (looksLikeEvent(item)) return validateEvent(item, where, what);
    const err = mispErrorMessage(item);
    if (err !== null) throw new ConnectorParseError(`MISP said: ${err}`);
  }
  throw new ConnectorParseError(`${what}: ${where || 'the document'} is ${describe(item)}, expected {"Event": {...}}`);
}

/**
 * Events from a `/events/restSearch` (returnFormat json) answer. Accepts the usual
 * `{"response": [{"Event": {...}}, ...]}`, a single `{"response": {"Event": {...}}}`, a bare array
 * of `{"Event": {...}}` (or of bare event objects), and a top-level `{"Event": {...}}` (`/events/view`).
 * A MISP error body becomes `ConnectorParseError("MISP said: <message>")`.
 */
export function parseRestSearchResponse(json: unknown): MispEvent[] {
  const what = 'MISP response';
  if (Array.isArray(json)) return json.map((item, i) => eventFromItem(item, `[${i}]`, what));
  if (!isRecord(json)) throw new ConnectorParseError(`${what} is ${describe(json)}, expected a JSON object with "response"`);
  if ('response' in json) {
    const r = json.response;
    if (Array.isArray(r)) return r.map((item, i) => eventFromItem(item, `response[${i}]`, what));
    if (isRecord(r)) return [eventFromItem(r, 'response', what)];
    throw new ConnectorParseError(`${what}: "response" is ${describe(r)}, expected a list of events`);
  }
  if ('Event' in json) return [eventFromItem(json, '', what)];
  const err = mispErrorMessage(json);
  if (err !== null) throw new ConnectorParseError(`MISP said: ${err}`);
  throw new ConnectorParseError(`${what} is ${describe(json)}, expected {"response": [{"Event": {...}}, ...]}`);
}

/** One feed event file (`<uuid>.json`): `{"Event": {...}}` (a bare event object is tolerated). */
export function parseFeedEvent(json: unknown): MispEvent {
  return eventFromItem(json, '', 'MISP feed event');
}

/**
 * A feed's `manifest.json`: an object keyed by event uuid, each value with `timestamp` (unix
 * seconds, string or number) and `info`. Keys must be UUIDs — they become `<feed>/<uuid>.json`
 * URLs, so anything else is refused rather than requested. Entries keep the manifest's order.
 */
export function parseFeedManifest(json: unknown): MispFeedManifestEntry[] {
  const what = 'MISP feed manifest';
  if (!isRecord(json)) {
    throw new ConnectorParseError(`${what} is ${describe(json)}, expected an object keyed by event uuid`);
  }
  const err = mispErrorMessage(json);
  if (err !== null && !Object.keys(json).some((k) => UUID_RE.test(k))) throw new ConnectorParseError(`MISP said: ${err}`);
  const out: MispFeedManifestEntry[] = [];
  for (const [uuid, value] of Object.entries(json)) {
    if (!UUID_RE.test(uuid)) {
      throw new ConnectorParseError(`${what}: key ${JSON.stringify(clip(uuid))} is not an event uuid`);
    }
    if (!isRecord(value)) throw new ConnectorParseError(`${what}: ${uuid} is ${describe(value)}, expected an object`);
    const timestamp = mispUnixSeconds(value.timestamp);
    if (timestamp === null) {
      throw new ConnectorParseError(`${what}: ${uuid} has no valid "timestamp" (got ${JSON.stringify(value.timestamp) ?? 'nothing'})`);
    }
    const info = typeof value.info === 'string' ? value.info : '';
    out.push({ uuid, timestamp, info });
  }
  return out;
}

/**
 * Where a feed sync stopped: the newest manifest `timestamp` it processed, and which events it
 * processed at exactly that second. MISP timestamps are whole seconds, so "newer than the cursor"
 * alone would miss an event changed later in the same second as the last sync, and a
 * `maxEntries` cut inside a second shared by many events would skip the rest of them for good.
 */
export interface MispCursor {
  timestamp: number;
  seen: string[];
}

/** Reads a stored cursor; one written before `seen` existed re-reads its last second once. */
export function mispCursorFrom(stored: Record<string, unknown>): MispCursor | null {
  if (typeof stored.timestamp !== 'number') return null;
  const seen = Array.isArray(stored.seen) ? stored.seen.filter((u): u is string => typeof u === 'string') : [];
  return { timestamp: stored.timestamp, seen };
}

/**
 * Uuids of the manifest events changed since the cursor (all when it is null): newer seconds, and
 * events of the cursor's own second not processed yet. Oldest first (ties by uuid), so a sync cut
 * by `maxEntries` or interrupted resumes where it stopped.
 */
export function changedFeedEvents(manifest: readonly MispFeedManifestEntry[], after: MispCursor | null): string[] {
  const seen = new Set(after?.seen);
  return manifest
    .filter((e) => after === null || e.timestamp > after.timestamp || (e.timestamp === after.timestamp && !seen.has(e.uuid)))
    .sort((a, b) => a.timestamp - b.timestamp || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0))
    .map((e) => e.uuid);
}

/** The cursor after processing `processed` (manifest entries), never behind `previous`. */
export function nextMispCursor(processed: readonly { uuid: string; timestamp: number }[], previous: MispCursor | null): MispCursor | null {
  let cursor = previous ? { timestamp: previous.timestamp, seen: [...previous.seen] } : null;
  for (const e of processed) {
    if (cursor === null || e.timestamp > cursor.timestamp) cursor = { timestamp: e.timestamp, seen: [e.uuid] };
    else if (e.timestamp === cursor.timestamp && !cursor.seen.includes(e.uuid)) cursor.seen.push(e.uuid);
  }
  return cursor;
}
