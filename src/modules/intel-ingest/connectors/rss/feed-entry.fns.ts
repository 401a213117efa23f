import { createHash } from 'node:crypto';
import type { IntelEntry } from '../../../intel/index.js';
import { parseFeedDate } from './feed-dates.fns.js';
import { htmlToPlainText, normalizeWhitespace, plainTitle } from './html-text.fns.js';

/**
 * The format-neutral half of feed parsing: each format's mapper (feed-formats.fns.ts) fills an
 * {@link EntryDraft} with what its item says, and {@link finishEntry} applies the shared rules
 * (id fallbacks, URL resolution, dates, text extraction, bounded raw copy) in one place.
 */

export type FeedFormat = 'rss' | 'rdf' | 'atom' | 'json';

export interface FeedContext {
  format: FeedFormat;
  title: string | null;
  language: string | null;
  /** Absolute base URL for the feed's items (xml:base / feed home link / feedUrl). */
  base: string | null;
  authors: string[];
}

export interface EntryDraft {
  /** guid / Atom id / JSON Feed id / rdf:about, as the source wrote it. */
  id: string | null | undefined;
  /** Candidate links, best first; relative ones are resolved against `base`. */
  links: Array<string | null | undefined>;
  /** Ids that are absolute http(s) URLs and may serve as the link when no link is given. */
  permalinkIds?: Array<string | null | undefined>;
  base: string | null;
  title: string | null | undefined;
  /** True when the title is declared HTML (Atom type="html"/"xhtml"). */
  titleIsHtml?: boolean;
  html: string | null | undefined;
  text: string | null | undefined;
  published: Array<string | null | undefined>;
  updated: Array<string | null | undefined>;
  language: string | null | undefined;
  authors: string[];
  tags: Array<string | null | undefined>;
  raw: unknown;
}

const TITLE_FALLBACK_CHARS = 80;
/** Ids are stored in a unique index; absurdly long ones are hashed instead of truncated. */
const MAX_ID_LENGTH = 512;
const MAX_TAGS = 100;
/** Per-string cap for the raw copy (content:encoded of long articles is the usual culprit). */
export const RAW_MAX_STRING_BYTES = 100_000;

export function finishEntry(d: EntryDraft, feed: FeedContext): IntelEntry {
  const contentHtml = nonEmpty(d.html);
  const url = firstUrl(d.links, d.base) ?? firstUrl(d.permalinkIds ?? [], null);
  const rawTitle = nonEmpty(d.title);
  const givenTitle = rawTitle ? (d.titleIsHtml ? htmlToPlainText(rawTitle).replace(/\s+/g, ' ') : plainTitle(rawTitle)) : '';
  // The text of an HTML body (html-to-text: the costly part of reading a feed) is derived when
  // first read, then kept: the sync reads it chunk by chunk while the chunks before are being
  // written, instead of for the whole feed before the first write. It is read at once when it
  // stands in for a missing title (and, with no id, link, title or date, for the id).
  const altText = d.text; // not `d`: the closure would keep the whole parsed item alive
  let text: string | null = contentHtml ? null : plainText(altText);
  const textOf = (): string => (text ??= (contentHtml ? htmlToPlainText(contentHtml) : '') || plainText(altText));
  const publishedAt = firstDate(d.published);
  return {
    externalId: externalId(d.id, url, rawTitle ?? '', publishedAt, givenTitle === '' ? textOf() : ''),
    title: givenTitle || fallbackTitle(textOf(), url),
    url,
    publisher: feed.title ?? d.authors[0] ?? feed.authors[0] ?? null,
    publishedAt,
    updatedAt: firstDate(d.updated),
    language: nonEmpty(d.language) ?? feed.language,
    get contentText(): string {
      return textOf();
    },
    set contentText(value: string) {
      text = value;
    },
    contentHtml,
    indicators: [],
    references: [],
    tags: uniqueTags(d.tags),
    // The body that became contentHtml is stored once, there: raw holds every other field.
    raw: { format: feed.format, item: boundRaw(d.raw, 0, contentHtml === null ? undefined : d.html ?? undefined) },
  };
}

export function nonEmpty(s: string | null | undefined): string | null {
  if (typeof s !== 'string') return null;
  const t = s.trim();
  return t === '' ? null : t;
}

function plainText(s: string | null | undefined): string {
  return s ? normalizeWhitespace(s) : '';
}

function fallbackTitle(text: string, url: string | null): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return url ?? '(untitled)';
  if (flat.length <= TITLE_FALLBACK_CHARS) return flat;
  const cut = flat.slice(0, TITLE_FALLBACK_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${space > TITLE_FALLBACK_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

function firstDate(candidates: Array<string | null | undefined>): string | null {
  for (const c of candidates) {
    const parsed = c ? parseFeedDate(c) : null;
    if (parsed) return parsed;
  }
  return null;
}

/**
 * Resolves `link` against `base` and keeps only http(s): a `javascript:` or `data:` link from a
 * hostile feed must never reach a UI as a clickable URL.
 */
export function resolveUrl(link: string | null | undefined, base: string | null): string | null {
  const l = nonEmpty(link);
  if (!l) return null;
  try {
    const u = base ? new URL(l, base) : new URL(l);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/** An `xml:base` (or home link) resolved against its parent base; any scheme, as bases go. */
export function resolveBase(candidate: string | null | undefined, parent: string | null): string | null {
  const c = nonEmpty(candidate);
  if (!c) return parent;
  try {
    return (parent ? new URL(c, parent) : new URL(c)).href;
  } catch {
    return parent;
  }
}

function firstUrl(links: Array<string | null | undefined>, base: string | null): string | null {
  for (const l of links) {
    const u = resolveUrl(l, base);
    if (u) return u;
  }
  return null;
}

function sha256(s: string): string {
  return `sha256:${createHash('sha256').update(s).digest('hex')}`;
}

/** guid/id, else the resolved link, else a hash of title + date (+ text when both are missing). */
function externalId(id: string | null | undefined, url: string | null, title: string, date: string | null, text: string): string {
  const given = nonEmpty(id);
  if (given) return given.length > MAX_ID_LENGTH ? sha256(given) : given;
  if (url) return url.length > MAX_ID_LENGTH ? sha256(url) : url;
  return sha256(`${title}\n${date ?? ''}${title === '' && !date ? `\n${text}` : ''}`);
}

function uniqueTags(tags: Array<string | null | undefined>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of tags) {
    const tag = nonEmpty(t)?.replace(/\s+/g, ' ');
    if (!tag || tag.length > 200 || seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    out.push(tag);
    if (out.length >= MAX_TAGS) break;
  }
  return out;
}

/**
 * A JSON-safe copy of the parsed item for audit/re-processing, bounded so one huge item cannot
 * bloat storage: strings over {@link RAW_MAX_STRING_BYTES} are dropped, and so is the `stored`
 * string, the body kept as contentHtml (the full content lives in contentHtml/contentText, not
 * twice per item); arrays keep 100 elements, nesting stops at depth 8.
 */
export function boundRaw(value: unknown, depth = 0, stored?: string): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    if (value === stored) return undefined;
    // Cheap length check first: UTF-8 never takes fewer bytes than UTF-16 code units.
    return value.length > RAW_MAX_STRING_BYTES || Buffer.byteLength(value) > RAW_MAX_STRING_BYTES ? undefined : value;
  }
  if (depth >= 8 || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    return value
      .slice(0, 100)
      .map((v) => boundRaw(v, depth + 1, stored))
      .filter((v) => v !== undefined);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '__proto__') continue; // never let a feed's key reach an object's prototype
    const b = boundRaw(v, depth + 1, stored);
    if (b !== undefined) out[k] = b;
  }
  return out;
}
