import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { ConnectorParseError } from '../connector.js';
import { parseFeed, parseFeedDate } from './rss.fns.js';

const FEED_URL = 'https://feeds.example.net/security/rss.xml';
const parse = (xml: string | Buffer, extra: { contentType?: string | null; maxEntries?: number; feedUrl?: string } = {}) =>
  parseFeed(typeof xml === 'string' ? Buffer.from(xml, 'utf8') : xml, { feedUrl: FEED_URL, ...extra });

function expectParseError(fn: () => unknown, message: RegExp | string): void {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(ConnectorParseError);
  if (typeof message === 'string') expect((thrown as Error).message).toBe(message);
  else expect((thrown as Error).message).toMatch(message);
}

const RSS2 = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel>
  <title>Example &amp; Co &#8211; Security</title>
  <link>https://www.example.com/</link>
  <language>en-GB</language>
  <item>
    <title>Patch now: CVE-2024-1234 &lt;b&gt;critical&lt;/b&gt; &amp; exploited</title>
    <link>https://www.example.com/posts/1?a=1&amp;b=2</link>
    <guid isPermaLink="false">post-1</guid>
    <pubDate>Mon, 7 Nov 2022 20:55:33 +0530</pubDate>
    <category>Vulnerability</category><category domain="x">Exploit</category><category>vulnerability</category>
    <description>Short &lt;em&gt;summary&lt;/em&gt;</description>
    <content:encoded><![CDATA[<p>Attackers <b>exploit</b> &amp; pivot. <a href="https://t.example/x">Read more</a></p><img src="https://px.example/t.gif" width="1" height="1"><p>Second&nbsp;paragraph.</p>]]></content:encoded>
    <dc:creator>Ann Analyst</dc:creator>
  </item>
  <item>
    <title><![CDATA[CDATA title with <b>tags</b> & ampersand]]></title>
    <link>/posts/2</link>
    <dc:date>2023-01-02T03:04:05+01:00</dc:date>
    <dc:language>de</dc:language>
    <description>Plain text body, no markup.</description>
  </item>
</channel>
</rss>`;

describe('parseFeed: RSS 2.0', () => {
  const feed = parse(RSS2);
  const [first, second] = feed.entries;

  it('reads the channel', () => {
    expect(feed).toMatchObject({ title: 'Example & Co – Security', link: 'https://www.example.com/', language: 'en-GB' });
    expect(feed.entries).toHaveLength(2);
  });

  it('maps an item with content:encoded, decoding entities and cleaning the HTML', () => {
    expect(first).toMatchObject({
      externalId: 'post-1',
      title: 'Patch now: CVE-2024-1234 critical & exploited',
      url: 'https://www.example.com/posts/1?a=1&b=2',
      publisher: 'Example & Co – Security',
      publishedAt: '2022-11-07T15:25:33.000Z',
      updatedAt: null,
      language: 'en-GB',
      tags: ['Vulnerability', 'Exploit'],
      indicators: [],
      references: [],
    });
    expect(first?.contentHtml).toContain('<img src="https://px.example/t.gif"');
    expect(first?.contentText).toBe('Attackers exploit & pivot. Read more\n\nSecond paragraph.');
    expect(first?.raw).toMatchObject({ format: 'rss', item: { guid: { value: 'post-1', isPermaLink: false } } });
  });

  it('derives the text of an HTML body when first read: copies and JSON carry it, and it can be replaced', () => {
    const [entry] = parse(RSS2).entries;
    const text = 'Attackers exploit & pivot. Read more\n\nSecond paragraph.';
    expect({ ...entry }.contentText).toBe(text);
    expect(JSON.parse(JSON.stringify(entry)).contentText).toBe(text);
    entry!.contentText = 'replaced';
    expect(entry!.contentText).toBe('replaced');
  });

  it('keeps CDATA verbatim, resolves relative links against the channel link, reads dc:*', () => {
    expect(second).toMatchObject({
      title: 'CDATA title with tags & ampersand',
      url: 'https://www.example.com/posts/2',
      externalId: 'https://www.example.com/posts/2',
      publishedAt: '2023-01-02T02:04:05.000Z',
      language: 'de',
      contentHtml: null,
      contentText: 'Plain text body, no markup.',
    });
  });

  it('re-exports parseFeedDate', () => {
    expect(parseFeedDate('Tue, 10 Jun 03 04:00:00 GMT')).toBe('2003-06-10T04:00:00.000Z');
  });
});

describe('parseFeed: RSS 1.0 (RDF)', () => {
  const rdf = `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="https://rdf.example.org/"><title>RDF News</title><link>https://rdf.example.org/</link><description>d</description>
    <dc:language>fr</dc:language></channel>
  <item rdf:about="https://rdf.example.org/a"><title>Alpha &amp; omega</title><link>https://rdf.example.org/a</link>
    <description>&lt;p&gt;Hello &lt;i&gt;RDF&lt;/i&gt;&lt;/p&gt;</description><dc:date>2017-06-15T10:29:47-07:00</dc:date><dc:subject>Botany</dc:subject></item>
</rdf:RDF>`;

  it('maps items with rdf:about ids, dc:date and dc:language', () => {
    const feed = parse(rdf);
    expect(feed).toMatchObject({ title: 'RDF News', language: 'fr' });
    expect(feed.entries[0]).toMatchObject({
      externalId: 'https://rdf.example.org/a',
      title: 'Alpha & omega',
      url: 'https://rdf.example.org/a',
      publishedAt: '2017-06-15T17:29:47.000Z',
      language: 'fr',
      contentHtml: '<p>Hello <i>RDF</i></p>',
      contentText: 'Hello RDF',
      tags: ['Botany'],
    });
  });
});

describe('parseFeed: Atom 1.0', () => {
  const atom = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en" xml:base="https://blog.example.org/">
  <title type="html">Threat &lt;i&gt;Blog&lt;/i&gt;</title><id>urn:uuid:feed</id><updated>2024-03-01T00:00:00Z</updated>
  <link rel="self" href="/atom.xml"/><link rel="alternate" type="text/html" href="/"/>
  <author><name>Blog Team</name></author>
  <entry xml:base="posts/" xml:lang="de">
    <title type="html">Ransomware &lt;em&gt;wave&lt;/em&gt;</title>
    <id>tag:blog.example.org,2024:1</id>
    <link rel="edit" href="/edit/1"/><link rel="alternate" type="text/html" href="wave.html"/>
    <published>2024-02-29T23:30:00-05:00</published><updated>2024-03-01T10:00:00+01:00</updated>
    <summary>Plain summary</summary>
    <content type="html">&lt;p&gt;Body &amp;amp; more &lt;img src="x.png"&gt;&lt;/p&gt;</content>
    <category term="ransomware" label="Ransomware"/><category term="ttp"/>
  </entry>
  <entry>
    <title>Only updated</title><id>https://blog.example.org/2</id><updated>2024-03-02T00:00:00Z</updated>
    <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>XHTML <strong>body</strong></p></div></content>
  </entry>
</feed>`;

  it('maps entries, resolving links through nested xml:base and preferring rel=alternate', () => {
    const feed = parse(atom);
    expect(feed).toMatchObject({ title: 'Threat Blog', link: 'https://blog.example.org/', language: 'en' });
    expect(feed.entries[0]).toMatchObject({
      externalId: 'tag:blog.example.org,2024:1',
      title: 'Ransomware wave',
      url: 'https://blog.example.org/posts/wave.html',
      publisher: 'Threat Blog',
      publishedAt: '2024-03-01T04:30:00.000Z',
      updatedAt: '2024-03-01T09:00:00.000Z',
      language: 'de',
      contentHtml: '<p>Body &amp; more <img src="x.png"></p>',
      contentText: 'Body & more',
      tags: ['Ransomware', 'ttp'],
    });
  });

  it('falls back to updated for publishedAt and to a URL id for the link; reads xhtml content', () => {
    const e = parse(atom).entries[1];
    expect(e).toMatchObject({
      url: 'https://blog.example.org/2',
      publishedAt: '2024-03-02T00:00:00.000Z',
      language: 'en',
      contentText: 'XHTML body',
    });
    expect(e?.contentHtml).toContain('<strong>body</strong>');
  });
});

describe('parseFeed: JSON Feed', () => {
  it('reads JSON Feed 1.1 with authors and content_html', () => {
    const doc = {
      version: 'https://jsonfeed.org/version/1.1',
      title: 'JSON Intel',
      home_page_url: 'https://json.example.com/',
      language: 'en-US',
      authors: [{ name: 'Feed Author' }],
      items: [
        {
          id: 'j1',
          url: '/items/1',
          title: 'First &amp; foremost',
          content_html: '<p>Hello <a href="https://x.example">link text</a></p>',
          date_published: '2024-05-01T12:00:00+02:00',
          date_modified: '2024-05-02T12:00:00Z',
          tags: ['apt', 'phishing'],
          authors: [{ name: 'Item Author', url: 'https://a.example' }],
          language: 'es',
        },
        { id: 2, content_text: 'Untitled entry text that becomes the title', date_published: 'not a date' },
      ],
    };
    const feed = parse(JSON.stringify(doc), { contentType: 'application/feed+json' });
    expect(feed).toMatchObject({ title: 'JSON Intel', link: 'https://json.example.com/', language: 'en-US' });
    expect(feed.entries[0]).toMatchObject({
      externalId: 'j1',
      title: 'First & foremost',
      url: 'https://json.example.com/items/1',
      publisher: 'JSON Intel',
      publishedAt: '2024-05-01T10:00:00.000Z',
      updatedAt: '2024-05-02T12:00:00.000Z',
      language: 'es',
      contentHtml: '<p>Hello <a href="https://x.example">link text</a></p>',
      contentText: 'Hello link text',
      tags: ['apt', 'phishing'],
    });
    expect(feed.entries[1]).toMatchObject({
      externalId: '2',
      title: 'Untitled entry text that becomes the title',
      url: null,
      publishedAt: null,
      contentHtml: null,
    });
  });

  it('reads JSON Feed 1.0 (singular author)', () => {
    const doc = { version: 'https://jsonfeed.org/version/1', title: 'Old', author: { name: 'Solo' }, items: [{ id: 'a', content_text: 'x' }] };
    expect(parse(JSON.stringify(doc)).entries[0]).toMatchObject({ externalId: 'a', contentText: 'x' });
  });

  it('rejects malformed JSON and JSON that is not a JSON Feed', () => {
    expectParseError(() => parse('{"version": "https://jsonfeed.org/version/1.1", "items": ['), /^Feed JSON is malformed/);
    expectParseError(() => parse('{"status": "ok"}'), /not an RSS, Atom or JSON Feed document \(JSON without a jsonfeed\.org "version"\)/);
  });
});

describe('parseFeed: links', () => {
  it('resolves relative links with xml:base (document and item) and with feedUrl', () => {
    const xml = `<rss version="2.0" xml:base="https://base.example/news/"><channel><title>B</title>
      <item><title>a</title><link>2024/a.html</link></item>
      <item xml:base="archive/"><title>b</title><link>b.html</link></item>
      <item><title>c</title><link>javascript:alert(1)</link></item>
    </channel></rss>`;
    expect(parse(xml).entries.map((e) => e.url)).toEqual(['https://base.example/news/2024/a.html', 'https://base.example/news/archive/b.html', null]);
    const noBase = `<rss version="2.0"><channel><title>B</title><item><title>a</title><link>item.html</link></item></channel></rss>`;
    expect(parse(noBase).entries[0]?.url).toBe('https://feeds.example.net/security/item.html');
  });

  it('falls back to a permalink guid, then to a stable hash id', () => {
    const xml = `<rss version="2.0"><channel><title>B</title>
      <item><title>g</title><guid>https://www.example.com/g</guid></item>
      <item><title>no ids</title><pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate></item>
    </channel></rss>`;
    const [g, h] = parse(xml).entries;
    expect(g).toMatchObject({ url: 'https://www.example.com/g', externalId: 'https://www.example.com/g' });
    expect(h?.url).toBeNull();
    expect(h?.externalId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(parse(xml).entries[1]?.externalId).toBe(h?.externalId);
  });
});

describe('parseFeed: charset', () => {
  const text = 'Café – sécurité «x»';
  const prolog = (enc: string) => `<?xml version="1.0" encoding="${enc}"?><rss version="2.0"><channel><title>${text}</title><item><title>${text}</title><link>https://e.example/1</link></item></channel></rss>`;

  it('honours the XML declaration (ISO-8859-1 read as windows-1252, like browsers)', () => {
    const feed = parse(iconv.encode(prolog('ISO-8859-1'), 'windows-1252'));
    expect(feed.title).toBe(text);
    expect(feed.entries[0]?.title).toBe(text);
  });

  it('honours the Content-Type charset, even over a contradicting declaration', () => {
    const body = iconv.encode(prolog('UTF-8'), 'windows-1252');
    expect(parse(body, { contentType: 'application/rss+xml; charset="ISO-8859-1"' }).title).toBe(text);
    const undeclared = iconv.encode(`<rss version="2.0"><channel><title>Café</title></channel></rss>`, 'latin1');
    expect(parse(undeclared, { contentType: 'text/xml; charset=iso-8859-1' }).title).toBe('Café');
  });

  it('uses a BOM, else UTF-8', () => {
    expect(parse(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(prolog('UTF-8'))])).title).toBe(text);
    expect(parse(iconv.encode(prolog('UTF-16'), 'utf-16le', { addBOM: true })).title).toBe(text);
    expect(parse(Buffer.from(prolog('UTF-8').replace(/<\?xml[^>]*>/, ''))).title).toBe(text);
  });
});

describe('parseFeed: security and malformed input', () => {
  const ENTITY_MESSAGE = 'Feed declares XML entities (DOCTYPE); refusing to parse';

  it('refuses XXE before parsing', () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><rss version="2.0"><channel><title>&xxe;</title></channel></rss>`;
    expectParseError(() => parse(xxe), ENTITY_MESSAGE);
  });

  it('refuses billion laughs', () => {
    const lol = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<rss version="2.0"><channel><title>&lol3;</title></channel></rss>`;
    expectParseError(() => parse(lol), ENTITY_MESSAGE);
  });

  it('refuses an internal subset without entities and a stray <!ENTITY anywhere outside CDATA', () => {
    expectParseError(() => parse(`<!DOCTYPE rss [ ]><rss version="2.0"><channel><title>x</title></channel></rss>`), ENTITY_MESSAGE);
    expectParseError(() => parse(`<rss version="2.0"><channel><!ENTITY x "y"><title>x</title></channel></rss>`), ENTITY_MESSAGE);
  });

  it('accepts an external-only DOCTYPE (RSS 0.91) and an article quoting <!ENTITY in CDATA', () => {
    const rss091 = `<?xml version="1.0"?><!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd">
<rss version="0.91"><channel><title>Old</title><item><title>XXE explained</title><link>https://e.example/x</link>
<description><![CDATA[<pre>&lt;!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]&gt;</pre>]]></description></item></channel></rss>`;
    const feed = parse(rss091);
    expect(feed.entries[0]?.contentHtml).toContain('<!ENTITY xxe SYSTEM "file:///etc/passwd">');
  });

  it('rejects malformed and truncated XML with an actionable message', () => {
    expectParseError(() => parse(`<rss version="2.0"><channel><title>x</titl></channel></rss>`), /^Feed XML is malformed: .*'title'.*\(line 1, column \d+\)$/);
    expectParseError(() => parse(`<rss version="2.0"><channel><title>x</title><item><title>a</title>`), /ends without <\/rss> \(truncated response\?\)/);
  });

  it('rejects an HTML page, plain text and an empty body', () => {
    const html = `<!DOCTYPE html><html lang="en"><head><title>Blog</title></head><body><p>Hi</p></body></html>`;
    expectParseError(() => parse(html, { contentType: 'text/html; charset=utf-8' }), /not an RSS, Atom or JSON Feed document \(root element <html>\)/);
    expectParseError(() => parse('Service unavailable'), /not an RSS, Atom or JSON Feed document \(neither XML nor JSON\)/);
    expectParseError(() => parse('  \n '), 'The feed response is empty');
  });
});

function generatedRss(n: number): string {
  const items = Array.from(
    { length: n },
    (_, i) =>
      `<item><title>Item ${i} &amp; more</title><link>https://e.example/${i}</link><guid>g${i}</guid><pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate><description>&lt;p&gt;Hello &lt;b&gt;world&lt;/b&gt; ${i}&lt;/p&gt;</description></item>`,
  );
  return `<rss version="2.0"><channel><title>Big</title>${items.join('')}</channel></rss>`;
}

describe('parseFeed: bounds', () => {
  it('respects maxEntries (document order) and defaults to 500', () => {
    const xml = generatedRss(600);
    expect(parse(xml, { maxEntries: 3 }).entries.map((e) => e.externalId)).toEqual(['g0', 'g1', 'g2']);
    expect(parse(xml, { maxEntries: 0 }).entries).toEqual([]);
    expect(parse(xml).entries).toHaveLength(500);
  });

  it('drops oversized strings from raw but keeps the content', () => {
    const big = 'A'.repeat(150_000);
    const xml = `<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>t</title>
      <item><title>Big</title><link>https://e.example/big</link><content:encoded><![CDATA[<p>${big}</p>]]></content:encoded></item></channel></rss>`;
    const [e] = parse(xml).entries;
    expect(e?.contentText).toHaveLength(150_000);
    expect(e?.raw).toEqual({ format: 'rss', item: { title: 'Big', link: 'https://e.example/big', content: {} } });
  });

  // Throughput smoke test: a generated 10,000-item RSS must come through whole when maxEntries
  // allows it. No timing assertion here — parse speed is measured by the benchmarks, not CI.
  it('parses a generated 10,000-item RSS', () => {
    const feed = parse(generatedRss(10_000), { maxEntries: 10_000 });
    expect(feed.entries).toHaveLength(10_000);
    expect(feed.entries[9_999]).toMatchObject({ externalId: 'g9999', title: 'Item 9999 & more', contentText: 'Hello world 9999' });
  });
});
