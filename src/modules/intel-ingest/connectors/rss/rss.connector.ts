import { ConnectorError, type Connector } from '../connector.js';
import { parseFeed } from './rss.fns.js';

/** RSS 2.0, RSS 1.0/RDF, Atom 1.0 and JSON Feed, with conditional GET. */
export const rssConnector: Connector = {
  async fetch(source, state, http) {
    if (!source.feedUrl) throw new ConnectorError('The source has no feedUrl');
    const headers: Record<string, string> = {
      accept: 'application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, application/xml;q=0.8, text/xml;q=0.8, */*;q=0.5',
    };
    if (state.etag) headers['if-none-match'] = state.etag;
    if (state.lastModified) headers['if-modified-since'] = state.lastModified;
    const res = await http.request(source.feedUrl, { headers });
    if (res.status === 304) return { status: 'not_modified', entries: [], etag: state.etag, lastModified: state.lastModified };
    if (res.status >= 400) throw new ConnectorError(`The feed answered HTTP ${res.status} for ${res.url}`);
    if (res.status >= 300) throw new ConnectorError(`The feed answered HTTP ${res.status} without a usable redirect`);
    const feed = parseFeed(res.body, { contentType: res.headers['content-type'] ?? null, feedUrl: res.url, maxEntries: source.maxEntries });
    // Set in place, not copied: copying would derive every entry's contentText now (feed-entry.fns.ts).
    for (const e of feed.entries) e.publisher ??= feed.title ?? source.displayName;
    return {
      status: 'ok',
      entries: feed.entries,
      etag: res.headers.etag ?? null,
      lastModified: res.headers['last-modified'] ?? null,
    };
  },
};
