import { describe, expect, it } from 'vitest';
import { ConnectorParseError } from '../connector.js';
import {
  changedFeedEvents,
  mispCursorFrom,
  nextMispCursor,
  unreadRestEvents,
  parseFeedEvent,
  parseFeedManifest,
  parseRestSearchResponse,
} from './misp.fns.js';

const U1 = '5758ebf5-c898-48e6-9fe9-5665c0a83866';
const U2 = '57c4445b-c548-4654-af0b-4be3950d210f';
const U3 = '5a3c2fcd-8328-42bb-a95e-4f4402de0b81';

let attrSeq = 0;
function attr(type: string, value: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  attrSeq += 1;
  return { type, value, uuid: `attr-${attrSeq}`, to_ids: true, deleted: false, category: 'Other', ...extra };
}

function parseError(fn: () => unknown): ConnectorParseError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConnectorParseError);
    return err as ConnectorParseError;
  }
  throw new Error('expected a ConnectorParseError');
}

describe('parseRestSearchResponse', () => {
  it('accepts the {"response": [{"Event": …}]} envelope and keeps unknown fields', () => {
    const events = parseRestSearchResponse({
      response: [
        { Event: { uuid: U1, info: 'one', custom_field: { a: 1 }, Attribute: [attr('md5', 'abc', { first_seen: null })] } },
        { Event: { uuid: U2, info: 'two', timestamp: 1700000000 } },
      ],
    });
    expect(events.map((e) => e.uuid)).toEqual([U1, U2]);
    expect(events[0]?.custom_field).toEqual({ a: 1 });
    expect(events[0]?.Attribute?.[0]).toHaveProperty('first_seen', null);
    expect(events[1]?.timestamp).toBe(1700000000);
  });

  it('accepts a single {"response": {"Event": …}}, a bare array, a top-level {"Event"} and an empty list', () => {
    expect(parseRestSearchResponse({ response: { Event: { uuid: U1, info: 'x' } } })).toHaveLength(1);
    expect(parseRestSearchResponse([{ Event: { uuid: U1, info: 'x' } }, { uuid: U2, info: 'bare' }]).map((e) => e.uuid)).toEqual([U1, U2]);
    expect(parseRestSearchResponse({ Event: { uuid: U3, info: 'view' } })[0]?.uuid).toBe(U3);
    expect(parseRestSearchResponse({ response: [] })).toEqual([]);
    expect(parseRestSearchResponse([])).toEqual([]);
  });

  it('turns MISP error bodies into "MISP said: …"', () => {
    const e1 = parseError(() =>
      parseRestSearchResponse({ name: 'Authentication failed.', message: 'Authentication failed. Please check your API key.', url: '/events/restSearch' }),
    );
    expect(e1.message).toBe('MISP said: Authentication failed. Please check your API key.');
    const e2 = parseError(() =>
      parseRestSearchResponse({ saved: false, name: 'Bad filter', message: 'Invalid filter', url: '/events/restSearch', errors: { timestamp: ['not a number'] } }),
    );
    expect(e2.message).toBe('MISP said: Invalid filter ({"timestamp":["not a number"]})');
    expect(parseError(() => parseRestSearchResponse({ response: [{ name: 'x', message: 'Not Found', url: '/x' }] })).message).toBe('MISP said: Not Found');
  });

  it('rejects anything else with a message that says where', () => {
    for (const bad of [null, 'html', 42, true, {}, { foo: 1 }, { response: 'nope' }, { response: null }, [1], [{ Event: 'x' }]]) {
      expect(parseError(() => parseRestSearchResponse(bad)).message).toMatch(/^MISP response/);
    }
    expect(parseError(() => parseRestSearchResponse({ response: [{ Event: { uuid: U1, info: 'ok' } }, { Event: { info: 'no uuid' } }] })).message).toContain(
      'response[1].Event.uuid',
    );
    const badAttr = { response: [{ Event: { uuid: U1, info: 'x', Attribute: [{ type: 7, value: 'v' }] } }] };
    expect(parseError(() => parseRestSearchResponse(badAttr)).message).toContain('response[0].Event.Attribute[0].type');
    expect(parseError(() => parseRestSearchResponse({ response: [{ Event: { uuid: '  ', info: 'x' } }] })).message).toContain('event uuid is empty');
  });
});

describe('parseFeedEvent', () => {
  it('reads {"Event": …} (and tolerates a bare event)', () => {
    expect(parseFeedEvent({ Event: { uuid: U1, info: 'feed', published: '1' } }).info).toBe('feed');
    expect(parseFeedEvent({ uuid: U2, info: 'bare', Attribute: [] }).uuid).toBe(U2);
  });

  it('rejects other documents', () => {
    expect(parseError(() => parseFeedEvent({ response: [] })).message).toMatch(/^MISP feed event/);
    expect(parseError(() => parseFeedEvent([{ Event: { uuid: U1 } }])).message).toMatch(/^MISP feed event/);
    expect(parseError(() => parseFeedEvent({ Event: { info: 'no uuid' } })).message).toContain('Event.uuid');
    expect(parseError(() => parseFeedEvent({ name: 'Not Found', message: 'Not Found', url: '/x.json' })).message).toBe('MISP said: Not Found');
  });
});

describe('parseFeedManifest / changedFeedEvents', () => {
  const manifest = {
    [U1]: { info: 'middle', timestamp: '1465681801', Orgc: { name: 'CIRCL' }, Tag: [] },
    [U2]: { info: 'newest', timestamp: 1472541011 },
    [U3]: { timestamp: '1400000000' },
  };

  it('parses string and number timestamps, keeps order, defaults info', () => {
    expect(parseFeedManifest(manifest)).toEqual([
      { uuid: U1, timestamp: 1465681801, info: 'middle' },
      { uuid: U2, timestamp: 1472541011, info: 'newest' },
      { uuid: U3, timestamp: 1400000000, info: '' },
    ]);
    expect(parseFeedManifest({})).toEqual([]);
  });

  it('rejects non-uuid keys, missing timestamps and non-objects', () => {
    expect(parseError(() => parseFeedManifest({ '../../etc/passwd': { timestamp: '1' } })).message).toContain('is not an event uuid');
    expect(parseError(() => parseFeedManifest({ [U1]: { info: 'x' } })).message).toContain(`${U1} has no valid "timestamp"`);
    expect(parseError(() => parseFeedManifest({ [U1]: { timestamp: 'yesterday' } })).message).toContain('"yesterday"');
    expect(parseError(() => parseFeedManifest({ [U1]: 'x' })).message).toContain(U1);
    expect(parseError(() => parseFeedManifest([])).message).toMatch(/^MISP feed manifest/);
    expect(parseError(() => parseFeedManifest({ name: 'Forbidden', message: 'Forbidden', url: '/manifest.json' })).message).toBe('MISP said: Forbidden');
  });

  it('lists all events oldest first on the first sync, then only newer ones', () => {
    const m = parseFeedManifest(manifest);
    expect(changedFeedEvents(m, null)).toEqual([U3, U1, U2]);
    expect(changedFeedEvents(m, { timestamp: 1465681801, seen: [U1] })).toEqual([U2]);
    expect(changedFeedEvents(m, { timestamp: 1465681800, seen: [] })).toEqual([U1, U2]);
    expect(changedFeedEvents(m, { timestamp: 1472541011, seen: [U2] })).toEqual([]);
    const ties = [
      { uuid: U2, timestamp: 5, info: '' },
      { uuid: U1, timestamp: 5, info: '' },
    ];
    expect(changedFeedEvents(ties, null)).toEqual([U1, U2]);
  });

  it('finds an event changed in the same second as the last sync, after that sync', () => {
    // The last sync processed U1 at second 5; U2 was written later in that same second.
    const after = nextMispCursor([{ uuid: U1, timestamp: 5 }], null);
    expect(after).toEqual({ timestamp: 5, seen: [U1] });
    const manifest = [
      { uuid: U1, timestamp: 5, info: '' },
      { uuid: U2, timestamp: 5, info: '' },
    ];
    expect(changedFeedEvents(manifest, after)).toEqual([U2]);
    expect(changedFeedEvents(manifest, nextMispCursor([manifest[1]!], after))).toEqual([]);
  });

  it('resumes inside a second that a maxEntries cut split', () => {
    const same = [U3, U1, U2].map((uuid) => ({ uuid, timestamp: 9, info: '' }));
    const first = changedFeedEvents(same, null).slice(0, 2);
    const cursor = nextMispCursor(first.map((u) => same.find((e) => e.uuid === u)!), null);
    expect(changedFeedEvents(same, cursor)).toEqual([[U1, U2, U3].sort()[2]]);
  });

  it('reads a cursor stored before `seen` existed as "re-read that second once"', () => {
    expect(mispCursorFrom({ timestamp: 7 })).toEqual({ timestamp: 7, seen: [] });
    expect(mispCursorFrom({ timestamp: 7, seen: [U1, 3] })).toEqual({ timestamp: 7, seen: [U1] });
    expect(mispCursorFrom({})).toBeNull();
  });
});

describe('unreadRestEvents', () => {
  const events = parseRestSearchResponse([
    { Event: { uuid: U2, timestamp: 1472541011 } },
    { Event: { uuid: U1, timestamp: '1465681801' } },
    { Event: { uuid: U3, timestamp: 'garbage' } },
  ]);

  it('orders by timestamp, keeps events without one, and moves the cursor only by timestamped ones', () => {
    const unread = unreadRestEvents(events, null);
    expect(unread.map((e) => e.uuid)).toEqual([U3, U1, U2]);
    const cursor = nextMispCursor(unread.filter((e) => e.timestamp !== null).map((e) => ({ uuid: e.uuid, timestamp: e.timestamp! })), null);
    expect(cursor).toEqual({ timestamp: 1472541011, seen: [U2] });
    expect(nextMispCursor([], { timestamp: 7, seen: [] })).toEqual({ timestamp: 7, seen: [] });
    expect(nextMispCursor([], null)).toBeNull();
  });

  it('drops what was read in the cursor\'s own second (the filter is "at or after"), keeps what changed later in it', () => {
    const sameSecond = parseRestSearchResponse([
      { Event: { uuid: U1, timestamp: 100 } },
      { Event: { uuid: U2, timestamp: 100 } },
      { Event: { uuid: U3, timestamp: 101 } },
    ]);
    expect(unreadRestEvents(sameSecond, { timestamp: 100, seen: [U1] }).map((e) => e.uuid)).toEqual([U2, U3]);
  });
});
