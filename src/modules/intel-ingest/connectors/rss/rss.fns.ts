import { XMLValidator } from 'fast-xml-parser';
import { parseAtomFeed, parseJsonFeed, parseRdfFeed, parseRssFeed } from 'feedsmith';
import type { IntelEntry } from '../../../intel/index.js';
import { ConnectorParseError } from '../connector.js';
import { mapAtom, mapJson, mapRdf, mapRss, type MappedFeed } from './feed-formats.fns.js';
import { decodeFeedBody, localName, sniffXml } from './feed-sniff.fns.js';

/**
 * Feed documents → {@link IntelEntry}: RSS 0.9x/2.0, RSS 1.0 (RDF), Atom 1.0, JSON Feed 1.0/1.1.
 *
 * Parsing is delegated to feedsmith (maintained, namespace-aware, covers all four formats). It
 * runs fast-xml-parser with `processEntities: false` and decodes only predefined/HTML character
 * references itself, so DTD entities are never expanded and external ones never fetched; we still
 * refuse any DTD internal subset or `<!ENTITY` up front (sniffXml) so that stays true whatever a
 * future feedsmith/fast-xml-parser does. Work is bounded by the body size (capped by the caller)
 * and by `maxEntries`. Pure: no I/O.
 */

export { parseFeedDate } from './feed-dates.fns.js';

export interface ParseFeedOptions {
  /** The response's Content-Type; its `charset` wins over what the document says. */
  contentType?: string | null;
  /** The (final, after redirects) URL of the feed: the last resort for resolving relative links. */
  feedUrl: string;
  /** Entries kept, in document order (feeds list newest first). Default 500. */
  maxEntries?: number;
}

export interface ParsedFeed {
  title: string | null;
  link: string | null;
  language: string | null;
  entries: IntelEntry[];
}

export const DEFAULT_MAX_ENTRIES = 500;

export function parseFeed(body: Buffer, opts: ParseFeedOptions): ParsedFeed {
  const limit = entryLimit(opts.maxEntries);
  const text = decodeFeedBody(body, opts.contentType);
  const start = text.trimStart();
  if (start === '') throw new ConnectorParseError('The feed response is empty');
  const mapped = start.startsWith('{') || start.startsWith('[') ? parseJsonDocument(start, opts.feedUrl, limit) : parseXmlDocument(text, opts.feedUrl, limit);
  return { title: mapped.title, link: mapped.link, language: mapped.language, entries: mapped.entries };
}

function entryLimit(maxEntries: number | undefined): number {
  if (maxEntries === undefined || !Number.isFinite(maxEntries)) return DEFAULT_MAX_ENTRIES;
  return Math.max(0, Math.floor(maxEntries));
}

function notAFeed(detail: string): ConnectorParseError {
  return new ConnectorParseError(
    `The response is not an RSS, Atom or JSON Feed document (${detail}); check that the URL points at the feed itself rather than a web page`,
  );
}

function parseJsonDocument(text: string, feedUrl: string, limit: number): MappedFeed {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new ConnectorParseError(`Feed JSON is malformed: ${(err as Error).message}`);
  }
  const version = doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as { version?: unknown }).version : undefined;
  if (typeof version !== 'string' || !version.includes('jsonfeed.org')) {
    throw notAFeed('JSON without a jsonfeed.org "version"');
  }
  let feed;
  try {
    feed = parseJsonFeed(doc, { maxItems: Math.max(1, limit) });
  } catch (err) {
    throw new ConnectorParseError(`JSON Feed could not be read: ${(err as Error).message}`);
  }
  return mapJson(feed, feedUrl, limit);
}

type XmlFormat = 'rss' | 'rdf' | 'atom';

function xmlFormat(root: string): XmlFormat | null {
  const local = localName(root);
  if (local === 'rss') return 'rss';
  if (local === 'RDF') return 'rdf';
  if (local === 'feed') return 'atom';
  return null;
}

function parseXmlDocument(text: string, feedUrl: string, limit: number): MappedFeed {
  // Security check and root detection happen before any parser runs.
  const { root } = sniffXml(text);
  if (root === null) throw notAFeed(text.trimStart().startsWith('<') ? 'no root element' : 'neither XML nor JSON');
  const format = xmlFormat(root);
  if (format === null) throw notAFeed(`root element <${root}>`);
  assertRootClosed(text, root);
  const options = { maxItems: Math.max(1, limit) };
  try {
    if (format === 'rss') return mapRss(parseRssFeed(text, options), feedUrl, limit);
    if (format === 'rdf') return mapRdf(parseRdfFeed(text, options), feedUrl, limit);
    return mapAtom(parseAtomFeed(text, options), feedUrl, limit);
  } catch (err) {
    if (err instanceof ConnectorParseError) throw err;
    throw malformed(text, format, root, err);
  }
}

/**
 * fast-xml-parser is lenient about a missing end: a download cut short would yield a partial
 * feed that looks complete. Requiring the root's end tag turns that into an error instead.
 */
function assertRootClosed(text: string, root: string): void {
  if (!text.includes(`</${root}`)) {
    throw new ConnectorParseError(`Feed XML is malformed: the document ends without </${root}> (truncated response?)`);
  }
}

/**
 * feedsmith reports "Invalid feed format" for everything; rerun fast-xml-parser's validator (only
 * on this failure path, it costs a second pass) for a message with a line and column.
 */
function malformed(text: string, format: XmlFormat, root: string, err: unknown): ConnectorParseError {
  const validation = XMLValidator.validate(text);
  if (validation !== true) {
    const { msg, line, col } = validation.err;
    return new ConnectorParseError(`Feed XML is malformed: ${msg} (line ${line}, column ${col})`);
  }
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : ' (it lacks the elements or namespace that format requires)';
  const label = format === 'rss' ? 'RSS' : format === 'rdf' ? 'RSS 1.0 (RDF)' : 'Atom';
  return new ConnectorParseError(`The <${root}> document is not a readable ${label} feed${cause}`);
}
