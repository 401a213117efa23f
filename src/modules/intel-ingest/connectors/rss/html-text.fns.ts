import { compile } from 'html-to-text';
import { simpleHtmlToText } from './html-blocks.fns.js';

/**
 * HTML → clean plain text for feed content. The text feeds indicator extraction and search, so
 * it keeps words and paragraph breaks and drops everything that is not prose: images (and so
 * tracking pixels), scripts, styles, embedded media, link targets (links keep their text only),
 * the uppercasing html-to-text applies to headings, and line wrapping.
 */
const convertHtml = compile({
  wordwrap: false,
  // Bounds the work on hostile input; the caller already caps the body size.
  limits: { maxInputLength: 2_000_000, maxDepth: 200, maxChildNodes: 20_000, ellipsis: '…' },
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'picture', format: 'skip' },
    { selector: 'svg', format: 'skip' },
    { selector: 'script', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'noscript', format: 'skip' },
    { selector: 'iframe', format: 'skip' },
    { selector: 'object', format: 'skip' },
    { selector: 'embed', format: 'skip' },
    { selector: 'video', format: 'skip' },
    { selector: 'audio', format: 'skip' },
    { selector: 'button', format: 'skip' },
    { selector: 'hr', format: 'lineBreak' },
    ...(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] as const).map((h) => ({
      selector: h,
      options: { uppercase: false, leadingLineBreaks: 2, trailingLineBreaks: 2 },
    })),
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    { selector: 'ul', options: { itemPrefix: '- ' } },
  ],
});

/**
 * Converts HTML to normalised plain text (entities decoded). The common markup takes the direct
 * path of html-blocks.fns.ts (the same text, a fraction of the cost); the rest html-to-text.
 */
export function htmlToPlainText(html: string): string {
  if (html.trim() === '') return '';
  return normalizeWhitespace(simpleHtmlToText(html) ?? convertHtml(html));
}

/** html-to-text alone, with the options above: the reference html-blocks.fns.test.ts compares the direct path with. */
export function htmlToTextLibrary(html: string): string {
  return convertHtml(html);
}

/**
 * Collapses runs of spaces (including NBSP and table padding) and limits blank lines to one, so
 * the same article always yields the same text regardless of its markup's indentation.
 */
export function normalizeWhitespace(text: string): string {
  // Text already folded (single spaces, no space at a line's edge, none of the characters below:
  // html-blocks.fns.ts's output for most feed HTML) only needs its blank lines limited.
  if (!UNFOLDED_RE.test(text)) return text.replace(/\n{3,}/g, '\n\n').trim();
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000 ]+/g, ' ')
    .replace(/[\u200b\u200c\u200d\u2060\ufeff]/g, '')
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * What normalizeWhitespace's general path would change besides blank lines and the text's two
 * ends: whitespace other than a space or a newline (trim()'s included), the zero-width characters
 * it drops, two spaces, a space at a line's edge.
 */
const UNFOLDED_RE = /[^\S\n ]|[\u200b-\u200d\u2060]| {2}| \n|\n /;

const TAG_RE = /<\/?[a-z][a-z0-9]*(?:\s[^<>]*)?\/?>/i;
const INLINE_TAG_RE = /<\/?(?:a|abbr|b|br|cite|code|del|em|font|i|ins|mark|q|s|small|span|strike|strong|sub|sup|u)(?:\s[^<>]*)?\/?>/i;
const ENTITY_RE = /&(?:#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});/i;

/** True when a string that is supposed to be HTML actually contains markup or entities. */
export function looksLikeHtml(s: string): boolean {
  return TAG_RE.test(s) || ENTITY_RE.test(s);
}

/**
 * Titles are plain text by spec, yet many feeds put (escaped) formatting HTML or double-encoded
 * entities in them. Only formatting tags trigger conversion, so a title that merely mentions a tag
 * (`Bug in <script> handling`) keeps its text.
 */
export function plainTitle(s: string): string {
  const text = INLINE_TAG_RE.test(s) || ENTITY_RE.test(s) ? htmlToPlainText(s) : s;
  return text.replace(/\s+/g, ' ').trim();
}
