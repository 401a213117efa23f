import type { IntelEntry, StructuredIndicator } from '../../../intel/index.js';
import { NON_INDICATOR_TYPES, typedValuesForAttribute } from './misp-indicators.fns.js';
import { mispFlag, mispUnixSeconds, type MispAttribute, type MispEvent } from './misp.schemas.js';
import { isHttpUrl, normaliseText } from '../text.fns.js';
import type { MispCursor } from './misp-parse.fns.js';

/**
 * Pure MISP connector functions: parse REST/feed documents (misp-parse.fns.ts), map an event to an
 * {@link IntelEntry}, and compute the incremental-sync cursor. No I/O here.
 */

export {
  changedFeedEvents,
  mispCursorFrom,
  nextMispCursor,
  type MispCursor,
  mispErrorMessage,
  parseFeedEvent,
  parseFeedManifest,
  parseRestSearchResponse,
} from './misp-parse.fns.js';
export { typedValuesForAttribute, type TypedValue } from './misp-indicators.fns.js';
export {
  MispEventSchema,
  mispFlag,
  mispUnixSeconds,
  type MispAttribute,
  type MispEvent,
  type MispFeedManifestEntry,
  type MispGalaxy,
  type MispObject,
} from './misp.schemas.js';

export interface MispEntryContext {
  /** Base URL of the MISP server (REST connector); null for feeds. */
  serverUrl: string | null;
  /** Fallback publisher when the event has no `Orgc.name` (e.g. the source's name). */
  publisher: string | null;
}

export const MISP_DEFAULT_CONFIDENCE = 0.8;
/** Events with `threat_level_id` 1 ("High"). */
export const MISP_HIGH_THREAT_CONFIDENCE = 0.9;

function isoFromUnix(seconds: number | null): string | null {
  if (seconds === null || seconds <= 0) return null;
  const d = new Date(seconds * 1000);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** MISP `date` (`YYYY-MM-DD`, a calendar day) → midnight UTC; null when not a real date. */
function isoFromDate(date: string | null | undefined): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date?.trim() ?? '');
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) return null;
  return t.toISOString();
}



function attrValue(a: MispAttribute): string {
  return String(a.value).trim();
}

interface LocatedAttribute {
  attr: MispAttribute;
  /** True for attributes directly on the event (not inside an Object). */
  topLevel: boolean;
}

/** Live (not deleted) attributes: the event's own, then those of live objects. */
function liveAttributes(event: MispEvent): LocatedAttribute[] {
  const out: LocatedAttribute[] = [];
  for (const attr of event.Attribute ?? []) if (!mispFlag(attr.deleted)) out.push({ attr, topLevel: true });
  for (const obj of event.Object ?? []) {
    if (mispFlag(obj.deleted)) continue;
    for (const attr of obj.Attribute ?? []) if (!mispFlag(attr.deleted)) out.push({ attr, topLevel: false });
  }
  return out;
}

/** Event tags (`Tag[]`, or `EventTag[].Tag` in index rows) then galaxy clusters, names as given, deduplicated. */
function eventTags(event: MispEvent): string[] {
  const tags = new Set<string>();
  const add = (name: string | null | undefined): void => {
    if (typeof name === 'string' && name.trim() !== '') tags.add(name);
  };
  for (const t of event.Tag ?? []) add(t.name);
  for (const et of event.EventTag ?? []) add(et.Tag?.name);
  for (const galaxy of event.Galaxy ?? []) {
    for (const c of galaxy.GalaxyCluster ?? []) {
      if (c.tag_name) add(c.tag_name);
      else if (c.value) add(`misp-galaxy:${c.type ?? galaxy.type ?? 'cluster'}="${c.value}"`);
    }
  }
  return [...tags];
}

function attributeOrigin(a: MispAttribute): string {
  const ref = a.uuid?.trim() || (a.id !== null && a.id !== undefined ? `id-${String(a.id)}` : 'unknown');
  return `misp:attribute:${ref}`;
}

/**
 * Maps a MISP event to a source-neutral entry:
 * - indicators: every live attribute (event and object level) with `to_ids` set, typed by MISP
 *   type (compound values split on the first `|`), deduplicated by (type, value), first wins;
 * - references: live `link` attributes without `to_ids`;
 * - contentText: `info` plus the event-level `comment`/`text` attributes.
 */
export function entryFromMispEvent(event: MispEvent, ctx: MispEntryContext): IntelEntry {
  const uuid = event.uuid.trim();
  const info = event.info?.trim() ?? '';
  const confidence =
    String(event.threat_level_id ?? '').trim() === '1' ? MISP_HIGH_THREAT_CONFIDENCE : MISP_DEFAULT_CONFIDENCE;

  const indicators: StructuredIndicator[] = [];
  const seenIndicators = new Set<string>();
  const references = new Set<string>();
  const texts = new Set<string>(info ? [info] : []);
  let firstLink: string | null = null;

  for (const { attr, topLevel } of liveAttributes(event)) {
    const value = attrValue(attr);
    if (!value) continue;
    if (attr.type === 'link' && firstLink === null && isHttpUrl(value)) firstLink = value;
    if (mispFlag(attr.to_ids) && !NON_INDICATOR_TYPES.has(attr.type)) {
      for (const tv of typedValuesForAttribute(attr.type, value)) {
        const key = `${tv.type}\u0000${tv.value}`;
        if (seenIndicators.has(key)) continue;
        seenIndicators.add(key);
        indicators.push({ type: tv.type, value: tv.value, confidence, origin: attributeOrigin(attr), context: attr.type });
      }
    } else if (attr.type === 'link') {
      references.add(value);
    } else if (topLevel && NON_INDICATOR_TYPES.has(attr.type)) {
      const text = normaliseText(value);
      if (text) texts.add(text);
    }
  }

  let url: string | null = firstLink;
  if (ctx.serverUrl) {
    const ref = event.id !== null && event.id !== undefined && String(event.id).trim() !== '' ? String(event.id).trim() : uuid;
    url = `${ctx.serverUrl.replace(/\/+$/, '')}/events/view/${encodeURIComponent(ref)}`;
  }

  const orgc = event.Orgc?.name?.trim();
  return {
    externalId: uuid,
    title: info || `MISP event ${uuid}`,
    url,
    publisher: orgc || ctx.publisher,
    publishedAt: isoFromUnix(mispUnixSeconds(event.publish_timestamp)) ?? isoFromDate(event.date),
    updatedAt: isoFromUnix(mispUnixSeconds(event.timestamp)),
    language: null,
    contentText: normaliseText([...texts].join('\n\n')),
    contentHtml: null,
    indicators,
    references: [...references],
    tags: eventTags(event),
    raw: event,
  };
}

/**
 * REST events not read yet at `after`, oldest first (ties by uuid), with their timestamps.
 * restSearch's `timestamp` filter is "at or after", so the cursor's own second comes back: its
 * events already read are dropped, the others (changed later in that second) are kept. Events
 * without a usable timestamp are kept but never move the cursor.
 */
export function unreadRestEvents(events: readonly MispEvent[], after: MispCursor | null): { event: MispEvent; uuid: string; timestamp: number | null }[] {
  const seen = new Set(after?.seen);
  return events
    .map((event) => ({ event, uuid: event.uuid, timestamp: mispUnixSeconds(event.timestamp) }))
    .filter((e) => after === null || e.timestamp === null || e.timestamp > after.timestamp || (e.timestamp === after.timestamp && !seen.has(e.uuid)))
    .sort((a, b) => (a.timestamp ?? 0) - (b.timestamp ?? 0) || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
}
