import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFeed } from './rss.fns.js';
import { simpleHtmlToText } from './html-blocks.fns.js';
import { htmlToPlainText, htmlToTextLibrary, normalizeWhitespace } from './html-text.fns.js';
import { sharedPath } from '../../../../../test/support/shared-dir.js';

/**
 * The direct path (html-blocks.fns.ts) must give html-to-text's text exactly, before
 * normalisation: on every entry of the shared real feeds, and on generated markup mixing the
 * handled elements with skipped and unhandled ones, stray and missing closing tags, entities,
 * comments and html-to-text's whitespace characters (U+200B included).
 */
const DIR = sharedPath('fixtures/rss-atom');
const files = fs.existsSync(DIR) ? fs.readdirSync(DIR).filter((f) => /\.(rss|atom)$/.test(f)) : [];

describe.skipIf(files.length === 0)('html-blocks on the shared feeds', () => {
  it('gives every HTML entry’s text as html-to-text does', () => {
    let entries = 0;
    for (const file of files) {
      const feed = parseFeed(fs.readFileSync(path.join(DIR, file)), { feedUrl: `https://fixtures.example.org/${file}`, maxEntries: 10_000 });
      for (const e of feed.entries) {
        if (!e.contentHtml) continue; // a plain-text description: no HTML converted
        entries++;
        expect(e.contentText, `${file}: ${e.externalId}`).toBe(normalizeWhitespace(htmlToTextLibrary(e.contentHtml)));
        const direct = simpleHtmlToText(e.contentHtml);
        if (direct !== null) expect(direct, `${file}: ${e.externalId}`).toBe(htmlToTextLibrary(e.contentHtml));
      }
    }
    expect(entries).toBeGreaterThan(0);
  });
});

/** Deterministic pseudo-random markup (a linear congruential generator: the same cases every run). */
function generator(seed: number) {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const tags = ['p', 'div', 'span', 'a', 'b', 'em', 'code', 'br', 'hr', 'h1', 'h3', 'h6', 'section', 'article', 'header', 'nav', 'main', 'aside', 'footer', 'form', 'img', 'script', 'style', 'svg', 'iframe', 'button', 'strong', 'wbr', 'font', 'title', 'li', 'td', 'o:p', 'figure', 'center', 'ul', 'ol', 'table', 'tr', 'blockquote', 'pre', 'body'];
  const texts = ['hello', ' ', '  ', '\n', '\t', '\r\n', '\f', 'a b', 'x&amp;y', '&nbsp;', '&lt;tag&gt;', '\u200b', '\u00a0', 'word.', ' end ', 'CVE-2024-1234', '&#8217;', '&copy', '&unknown;', 'é', 'hxxp://evil[.]com', '<', '>'];
  const singles = ['<br>', '<br/>', '</br>', '</p>', '</div>', '<p>', '<hr>', '<wbr>', '<img src="x">', '<!-- note -->'];
  const gen = (depth: number): string => {
    let out = '';
    for (let n = Math.floor(rnd() * 5); n > 0; n--) {
      const r = rnd();
      if (r < 0.45 || depth > 6) out += pick(texts);
      else if (r < 0.5) out += pick(singles);
      else if (r < 0.6) {
        // A list: items (some unclosed, some holding blocks or lists) between blank text, now and then something else.
        const items = Array.from({ length: Math.floor(rnd() * 4) }, () => `<li>${gen(depth + 1)}${rnd() < 0.9 ? '</li>' : ''}${pick(['', '\n', ' '])}`);
        out += `<ul>${pick(['', ' ', '\n  '])}${items.join('')}${rnd() < 0.1 ? pick(['x', '<!-- c -->', '<p>p</p>', '<img src="x">']) : ''}</ul>`;
      } else {
        const t = pick(tags);
        out += `<${t}${rnd() < 0.2 ? ' href="https://x.example/a?b=1&amp;c=2"' : ''}>${gen(depth + 1)}${rnd() < 0.9 ? `</${t}>` : ''}`;
      }
    }
    return out;
  };
  return () => gen(0);
}

describe('html-blocks on generated markup', () => {
  it('gives html-to-text’s text whenever it takes the markup', () => {
    const next = generator(27);
    let taken = 0;
    let lists = 0;
    for (let i = 0; i < 4_000; i++) {
      const html = next();
      const direct = simpleHtmlToText(html);
      if (direct === null) continue;
      taken++;
      if (html.includes('<ul>')) lists++;
      expect(direct, html).toBe(htmlToTextLibrary(html));
    }
    expect(taken).toBeGreaterThan(2_000);
    expect(lists).toBeGreaterThan(300);
  });

  it('leaves ordered lists, lists with other children than items, tables, quotes, preformatted text and a <body> anywhere to html-to-text', () => {
    for (const html of ['<ul>text<li>a</li></ul>', '<ul><!-- c --><li>a</li></ul>', '<ul><p>a</p></ul>', '<ol><li>a</li></ol>', '<table><tr><td>a</td></tr></table>', '<blockquote>a</blockquote>', '<pre>a  b</pre>', '<p>x</p><body>y</body>', '<button><body>y</body></button>']) {
      expect(simpleHtmlToText(html)).toBeNull();
      expect(htmlToPlainText(html)).toBe(normalizeWhitespace(htmlToTextLibrary(html)));
    }
  });

  it('converts a feed post’s usual markup', () => {
    const html = '<p>The loader <b>decrypted</b> a payload&nbsp;in memory.</p>\n<p>C2 <code>45.1.2[.]3</code>, see <a href="https://nvd.nist.gov/">NVD</a>.<br>Next line<img src="t.gif"></p><div>Tail &amp; end</div>';
    expect(simpleHtmlToText(html)).toBe(htmlToTextLibrary(html));
    expect(htmlToPlainText(html)).toBe('The loader decrypted a payload in memory.\n\nC2 45.1.2[.]3, see NVD.\nNext line\n\nTail & end');
  });

  it('converts unordered lists as html-to-text does (prefix, nested lists, items with blocks)', () => {
    const html = '<p>Indicators:</p>\n<ul>\n  <li>C2 <code>a[.]b</code></li>\n  <li><p>Hash</p><p>second line</p></li>\n  <li>Nested<ul><li>one</li><li>two</li></ul></li>\n</ul><ul></ul><p>End</p>';
    expect(simpleHtmlToText(html)).toBe(htmlToTextLibrary(html));
    expect(htmlToPlainText(html)).toBe('Indicators:\n\n- C2 a[.]b\n\n- Hash\n\nsecond line\n\n- Nested\n- one\n- two\n\nEnd');
  });
});

describe('normalizeWhitespace', () => {
  it('gives the line-by-line definition’s result on any text (its shortcut for folded text included)', () => {
    const byLine = (text: string) =>
      text
        .replace(/\r\n?/g, '\n')
        .replace(/[\t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000 ]+/g, ' ')
        .replace(/[\u200b\u200c\u200d\u2060\ufeff]/g, '')
        .split('\n')
        .map((line) => line.trim())
        .join('\n')
        .replace(/\n{3,}/g, '\n\n')
        .trim();
    const pool = ['a', 'b', 'x.', ' ', '  ', '\n', '\n\n', '\n\n\n', ' \n ', '\r', '\r\n', '\t', '\v', '\f', '\u00a0', '\u2003', '\u200b', '\u200c', '\u200d', '\ufeff', '\u2060', '\u3000', '\u1680', '\u2028', '\u2029', '\u202f', '\u205f', '\u180e'];
    let seed = 3;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let i = 0; i < 20_000; i++) {
      const text = Array.from({ length: Math.floor(rnd() * 20) }, () => pool[Math.floor(rnd() * pool.length)]).join('');
      expect(normalizeWhitespace(text), JSON.stringify(text)).toBe(byLine(text));
    }
  });
});
