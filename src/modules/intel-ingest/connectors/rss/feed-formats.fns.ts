import type { AtomFeed, JsonFeed, RdfFeed, RssFeed } from 'feedsmith';
import type { IntelEntry } from '../../../intel/index.js';
import { finishEntry, nonEmpty, resolveBase, resolveUrl, type FeedContext } from './feed-entry.fns.js';
import { htmlToPlainText, looksLikeHtml, plainTitle } from './html-text.fns.js';

/**
 * Maps feedsmith's parsed documents (dates left as raw strings) to {@link IntelEntry}. Each mapper
 * only says where a format keeps each field; the shared rules live in feed-entry.fns.ts.
 */

export interface MappedFeed {
  title: string | null;
  link: string | null;
  language: string | null;
  entries: IntelEntry[];
}

type Rss = RssFeed.Feed<string>;
type RssItem = RssFeed.Item<string>;
type Rdf = RdfFeed.Feed<string>;
type RdfItem = RdfFeed.Item<string>;
type Atom = AtomFeed.Feed<string>;
type AtomEntry = AtomFeed.Entry<string>;
type AtomText = AtomFeed.Text;
type Json = JsonFeed.Feed<string>;

function isHtmlType(type: string | undefined): boolean {
  const t = (type ?? 'text').toLowerCase();
  return t === 'html' || t === 'xhtml' || t.includes('html');
}

function isTextType(type: string | undefined): boolean {
  const t = (type ?? 'text').toLowerCase();
  return t === 'text' || t.startsWith('text/plain');
}

function atomTitle(t: AtomText | undefined): string | null {
  if (!t?.value) return null;
  return (isHtmlType(t.type) ? htmlToPlainText(t.value).replace(/\s+/g, ' ').trim() : plainTitle(t.value)) || null;
}

/** RSS `description` is HTML by convention (often entity-escaped); treat it so when it has markup. */
function splitDescription(description: string | undefined): { html: string | null; text: string | null } {
  const d = nonEmpty(description);
  if (!d) return { html: null, text: null };
  return looksLikeHtml(d) ? { html: d, text: null } : { html: null, text: d };
}

function personName(p: { name?: string; email?: string } | undefined): string | null {
  return nonEmpty(p?.name) ?? nonEmpty(p?.email);
}

function names(people: Array<{ name?: string; email?: string }> | undefined): string[] {
  return (people ?? []).map(personName).filter((n): n is string => n !== null);
}

/** Atom links that point at the entry's web page: rel="alternate" (the default), HTML first. */
function alternateLinks(links: Array<{ href?: string; rel?: string; type?: string }> | undefined): string[] {
  const alternates = (links ?? []).filter((l) => l.href && (l.rel === undefined || l.rel === 'alternate'));
  alternates.sort((a, b) => Number(!(a.type ?? 'text/html').includes('html')) - Number(!(b.type ?? 'text/html').includes('html')));
  return alternates.map((l) => l.href as string);
}

/** Items base: the item's xml:base, else the feed's base (xml:base, home link, or feedUrl). */
function homeBase(xmlBase: string | undefined, homeLink: string | undefined, feedUrl: string): { link: string | null; base: string | null } {
  const docBase = resolveBase(xmlBase, feedUrl);
  const link = resolveUrl(homeLink, docBase);
  // RSS says nothing about relative links; readers resolve them against the site's home link,
  // which is where the item pages live (the feed itself is often on another host).
  return { link, base: nonEmpty(xmlBase) ? docBase : (link ?? docBase) };
}

export function mapRss(feed: Rss, feedUrl: string, limit: number): MappedFeed {
  const { link, base } = homeBase(feed.xml?.base, feed.link, feedUrl);
  const title = nonEmpty(feed.title) ? plainTitle(feed.title as string) : nonEmpty(feed.dc?.titles?.[0]);
  const language = nonEmpty(feed.language) ?? nonEmpty(feed.dc?.languages?.[0]) ?? nonEmpty(feed.xml?.lang);
  const ctx: FeedContext = { format: 'rss', title: title || null, language, base, authors: names(feed.managingEditor ? [feed.managingEditor] : []) };
  const entries = (feed.items ?? []).slice(0, limit).map((item: RssItem) => {
    const desc = splitDescription(item.description);
    const guid = item.guid?.value;
    const itemBase = resolveBase(item.xml?.base, base);
    return finishEntry(
      {
        id: guid,
        links: [item.link, ...alternateLinks(item.atom?.links)],
        // A guid is a permalink unless isPermaLink="false"; only trust it when it is an absolute URL.
        permalinkIds: item.guid?.isPermaLink === false ? [] : [guid],
        base: itemBase,
        title: item.title ?? item.dc?.titles?.[0],
        html: item.content?.encoded ?? desc.html,
        text: desc.text,
        published: [item.pubDate, ...(item.dc?.dates ?? []), ...(item.dcterms?.issued ?? []), ...(item.dcterms?.created ?? []), item.atom?.published],
        updated: [...(item.dcterms?.modified ?? []), item.atom?.updated],
        language: item.xml?.lang ?? item.dc?.languages?.[0],
        authors: [...names(item.authors), ...(item.dc?.creators ?? [])],
        tags: [...(item.categories ?? []).map((c) => c.name), ...(item.dc?.subjects ?? [])],
        raw: item,
      },
      ctx,
    );
  });
  return { title: ctx.title, link, language, entries };
}

export function mapRdf(feed: Rdf, feedUrl: string, limit: number): MappedFeed {
  const { link, base } = homeBase(feed.xml?.base, feed.link, feedUrl);
  const title = nonEmpty(feed.title) ? plainTitle(feed.title as string) : nonEmpty(feed.dc?.titles?.[0]);
  const language = nonEmpty(feed.dc?.languages?.[0]) ?? nonEmpty(feed.xml?.lang);
  const ctx: FeedContext = { format: 'rdf', title: title || null, language, base, authors: feed.dc?.creators ?? [] };
  const entries = (feed.items ?? []).slice(0, limit).map((item: RdfItem) => {
    const desc = splitDescription(item.description);
    return finishEntry(
      {
        // rdf:about is the item's identity in RSS 1.0 (and usually its link).
        id: item.rdf?.about,
        links: [item.link, ...alternateLinks(item.atom?.links)],
        permalinkIds: [item.rdf?.about],
        base: resolveBase(item.xml?.base, base),
        title: item.title ?? item.dc?.titles?.[0],
        html: item.content?.encoded ?? desc.html,
        text: desc.text,
        published: [...(item.dc?.dates ?? []), ...(item.dcterms?.issued ?? []), ...(item.dcterms?.created ?? [])],
        updated: [...(item.dcterms?.modified ?? [])],
        language: item.xml?.lang ?? item.dc?.languages?.[0],
        authors: item.dc?.creators ?? [],
        tags: item.dc?.subjects ?? [],
        raw: item,
      },
      ctx,
    );
  });
  return { title: ctx.title, link, language, entries };
}

export function mapAtom(feed: Atom, feedUrl: string, limit: number): MappedFeed {
  // Atom (RFC 4287 §2) resolves relative references against xml:base, else the document URL.
  const base = resolveBase(feed.xml?.base, feedUrl);
  const link = alternateLinks(feed.links).map((l) => resolveUrl(l, base)).find((l) => l !== null) ?? null;
  const language = nonEmpty(feed.xml?.lang) ?? nonEmpty(feed.dc?.languages?.[0]);
  const ctx: FeedContext = { format: 'atom', title: atomTitle(feed.title), language, base, authors: names(feed.authors) };
  const entries = (feed.entries ?? []).slice(0, limit).map((entry: AtomEntry) => {
    const content = entry.content?.src ? undefined : entry.content;
    const summary = entry.summary;
    const html = [content, summary].find((c) => c?.value && isHtmlType(c.type))?.value;
    const text = [content, summary].find((c) => c?.value && isTextType(c.type))?.value;
    return finishEntry(
      {
        id: entry.id,
        links: alternateLinks(entry.links),
        permalinkIds: [entry.id],
        base: resolveBase(entry.xml?.base, base),
        title: entry.title?.value,
        titleIsHtml: isHtmlType(entry.title?.type),
        html,
        text,
        // `updated` is mandatory in Atom and `published` optional: fall back so undated ≠ unpublished.
        published: [entry.published, ...(entry.dc?.dates ?? []), entry.updated],
        updated: [entry.updated],
        language: entry.xml?.lang ?? content?.xml?.lang ?? entry.dc?.languages?.[0],
        authors: names(entry.authors),
        tags: (entry.categories ?? []).map((c) => c.label ?? c.term),
        raw: entry,
      },
      ctx,
    );
  });
  return { title: ctx.title, link, language, entries };
}

export function mapJson(feed: Json, feedUrl: string, limit: number): MappedFeed {
  const docBase = resolveBase(null, feedUrl);
  const link = resolveUrl(feed.home_page_url, docBase);
  const title = nonEmpty(feed.title) ? plainTitle(feed.title as string) || null : null;
  const language = nonEmpty(feed.language);
  const ctx: FeedContext = { format: 'json', title, language, base: link ?? docBase, authors: names(feed.authors) };
  const items = Array.isArray(feed.items) ? feed.items : [];
  const entries = items.slice(0, limit).map((item) =>
    finishEntry(
      {
        id: item.id,
        links: [item.url, item.external_url],
        base: ctx.base,
        title: item.title,
        html: item.content_html,
        text: item.content_text ?? item.summary,
        published: [item.date_published, item.date_modified],
        updated: [item.date_modified],
        language: item.language,
        authors: names(item.authors),
        tags: item.tags ?? [],
        raw: item,
      },
      ctx,
    ),
  );
  return { title, link, language, entries };
}
