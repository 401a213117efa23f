import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFeed } from './rss.fns.js';
import { sharedPath } from '../../../../../test/support/shared-dir.js';

/**
 * Replays the shared real-world RSS/Atom samples (read in place, never copied into the project;
 * skipped when the folder is absent). Each must yield entries with a title, an absolute http(s)
 * URL, and a publishedAt whenever the item carries a date element.
 */
const DIR = sharedPath('fixtures/rss-atom');
const files = fs.existsSync(DIR) ? fs.readdirSync(DIR).filter((f) => /\.(rss|atom)$/.test(f)) : [];

/** Per-item date presence, read from the raw text so the check does not trust our own parser. */
function itemDateFlags(xml: string): boolean[] {
  const items = xml.split(/<(?:item|entry)[\s>]/).slice(1);
  return items.map((chunk) => /<(?:pubDate|dc:date|published|updated)[\s>]/i.test(chunk.split(/<\/(?:item|entry)>/)[0] ?? ''));
}

describe.skipIf(!fs.existsSync(DIR))('RSS/Atom fixtures', () => {
  it('has samples to replay', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s parses into complete entries', (file) => {
    const body = fs.readFileSync(path.join(DIR, file));
    const feed = parseFeed(body, { feedUrl: `https://fixtures.example.org/${file}`, maxEntries: 10_000 });
    const dated = itemDateFlags(body.toString('utf8'));
    expect(feed.entries.length).toBeGreaterThanOrEqual(1);
    expect(feed.entries).toHaveLength(dated.length);
    expect(feed.title).toBeTruthy();
    feed.entries.forEach((e, i) => {
      expect(e.title.trim(), `${file}#${i} title`).not.toBe('');
      expect(e.url, `${file}#${i} url`).toMatch(/^https?:\/\/[^/]+/);
      expect(() => new URL(e.url ?? '')).not.toThrow();
      expect(e.externalId).not.toBe('');
      if (dated[i]) expect(e.publishedAt, `${file}#${i} publishedAt`).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(typeof e.contentText).toBe('string');
      expect(JSON.stringify(e.raw).length).toBeLessThan(500_000);
    });
    expect(new Set(feed.entries.map((e) => e.externalId)).size).toBe(feed.entries.length);
  });
});
