import { Parser } from 'htmlparser2';

/**
 * The common case of feed HTML — paragraphs, divs, headings, line breaks, unordered lists,
 * links and inline formatting — converted straight from htmlparser2's events, with the same text
 * html-to-text gives under html-text.fns.ts's options (before normalizeWhitespace): the same
 * parser (so the same entity decoding and the same implied opening and closing of tags), and a
 * port of the part of html-to-text's BlockTextBuilder these elements use (block and list line
 * breaks, item prefixes, whitespace folding).
 *
 * Why: html-to-text builds a DOM, then matches each element against its selectors (selderee)
 * and walks it: 75–85 µs of an RSS entry's ~640 µs of Node CPU in the ingest bench, for markup
 * that is nearly always this subset. Anything else (ordered lists, a list with other children
 * than items, tables, blockquote, pre, a <body> to select, input past the limits) returns null
 * and the caller uses html-to-text, whose output for it is unchanged. html-blocks.fns.test.ts
 * compares both on every fixture entry and on generated markup.
 */

/** Elements html-text.fns.ts skips with their content (script and style are never walked either). */
const SKIP = new Set(['img', 'picture', 'svg', 'script', 'style', 'noscript', 'iframe', 'object', 'embed', 'video', 'audio', 'button']);
/** Block elements: line breaks before and after, the same number (html-to-text's defaults; headings as html-text.fns.ts sets them). */
const BLOCKS = new Map<string, number>([
  ...['article', 'aside', 'div', 'footer', 'form', 'header', 'main', 'nav', 'section'].map((t) => [t, 1] as const),
  ...['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((t) => [t, 2] as const),
]);
/** Formatted by html-to-text in ways not ported here. */
const NOT_HANDLED = new Set(['blockquote', 'pre', 'ol', 'table']);
/** Far inside html-to-text's limits (maxDepth 200, maxChildNodes 20,000 per element). */
const MAX_DEPTH = 100;
const MAX_NODES = 20_000;
const MAX_INPUT = 2_000_000;

/** html-to-text's default whitespace: ' \t\r\n\f\u200b'. */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d || c === 0x0c || c === 0x200b;
}
const WORD_RE = /[^ \t\r\n\f\u200b]+/g;
const HAS_WORD_RE = /[^ \t\r\n\f\u200b]/;

/** A block's lines of words (html-to-text's InlineTextBuilder without wrapping), each line joined as it grows. */
class Inline {
  lines: string[] = [];
  /** The current line's words, joined by single spaces ('' when it has none: words are never empty). */
  line = '';
  /** The last text ended in whitespace: its next word is a new word. */
  stashedSpace = false;

  isEmpty(): boolean {
    return this.lines.length === 0 && this.line === '';
  }

  startNewLine(n: number): void {
    this.lines.push(this.line);
    for (let i = 1; i < n; i++) this.lines.push('');
    this.line = '';
  }

  clear(): void {
    this.lines.length = 0;
    this.line = '';
  }

  toString(): string {
    return this.lines.length === 0 ? this.line : `${this.lines.join('\n')}\n${this.line}`;
  }

  /** Whitespace folded: words separated by one space; a text that does not start with whitespace continues the last word. */
  addText(text: string): void {
    const prev = this.stashedSpace;
    let anyWord = false;
    WORD_RE.lastIndex = 0;
    for (let m = WORD_RE.exec(text); m !== null; m = WORD_RE.exec(text)) {
      const join = anyWord || prev || m.index > 0;
      this.line = this.line === '' ? m[0] : join ? `${this.line} ${m[0]}` : this.line + m[0];
      anyWord = true;
    }
    this.stashedSpace = (prev && !anyWord) || isSpace(text.charCodeAt(text.length - 1));
  }
}

class Block {
  inline = new Inline();
  rawText = '';
  stashedLineBreaks = 0;
  constructor(
    public leadingLineBreaks: number,
    readonly trailingLineBreaks: number,
  ) {}

  text(): string {
    return this.inline.isEmpty() ? this.rawText : this.rawText + this.inline.toString();
  }

  /** A closed child block's text, after max(stashed, leading) line breaks when this block has text already. */
  addBlockText(text: string, leadingLineBreaks: number, trailingLineBreaks: number): void {
    const own = this.text();
    const lineBreaks = Math.max(this.stashedLineBreaks, leadingLineBreaks);
    this.inline.clear();
    if (own) this.rawText = own + '\n'.repeat(lineBreaks) + text;
    else {
      this.rawText = text;
      this.leadingLineBreaks = lineBreaks;
    }
    this.stashedLineBreaks = trailingLineBreaks;
  }

  addInline(text: string): void {
    if (text.length === 0) return;
    if (this.stashedLineBreaks) {
      if (!HAS_WORD_RE.test(text)) return; // whitespace after a block: nothing to add
      this.inline.startNewLine(this.stashedLineBreaks);
    }
    this.inline.addText(text);
    this.stashedLineBreaks = 0;
  }
}

class NotHandled extends Error {}

/**
 * An open element: inline (walked through), a block, an unordered list (its Block opened at its
 * first item: a list without items adds nothing) or one of its items.
 */
type OpenElement = { name: string; kind: 'inline' } | { name: string; kind: 'block' | 'item'; block: Block } | { name: string; kind: 'list'; block: Block | null; nested: boolean };

/** html-text.fns.ts's item prefix for <ul>, and the indent of an item's further lines (html-to-text pads them to the prefix). */
const ITEM_PREFIX = '- ';
const ITEM_INDENT = '\n  ';
const BLANK_RE = /^\s*$/;

/** The text html-to-text would give for `html` (before normalizeWhitespace), or null when the markup is outside this subset. */
export function simpleHtmlToText(html: string): string | null {
  if (html.length > MAX_INPUT) return null;
  const stack: Block[] = [new Block(1, 1)];
  const open: OpenElement[] = [];
  let skipDepth = 0;
  let nodes = 0;
  let text = '';
  const top = () => stack[stack.length - 1]!;
  /** Inside a list only <li> children count: html-to-text drops blank text there, and makes anything else a row of its own (not ported). */
  const inList = () => open[open.length - 1]?.kind === 'list';
  const flush = () => {
    if (text && inList()) {
      if (!BLANK_RE.test(text)) throw new NotHandled();
    } else if (text) top().addInline(text);
    text = '';
  };
  const parser = new Parser(
    {
      onopentag(name) {
        // A <body> anywhere, even inside skipped content, is what html-to-text converts (its base element).
        if (++nodes > MAX_NODES || name === 'body') throw new NotHandled();
        if (skipDepth > 0) {
          skipDepth++;
          return;
        }
        flush();
        const parent = open[open.length - 1];
        if (parent?.kind === 'list' && name !== 'li') throw new NotHandled();
        if (SKIP.has(name)) {
          skipDepth = 1;
          return;
        }
        if (NOT_HANDLED.has(name) || open.length >= MAX_DEPTH) throw new NotHandled();
        if (name === 'ul') {
          open.push({ name, kind: 'list', block: null, nested: parent?.name === 'li' });
          return;
        }
        if (parent?.kind === 'list') {
          if (!parent.block) {
            const breaks = parent.nested ? 1 : 2;
            parent.block = new Block(breaks, breaks);
            stack.push(parent.block);
          }
          const item = new Block(1, 1);
          stack.push(item);
          open.push({ name, kind: 'item', block: item });
          return;
        }
        const leading = BLOCKS.get(name);
        if (leading === undefined) {
          open.push({ name, kind: 'inline' });
          if (name === 'br' || name === 'hr') top().inline.startNewLine(1);
          return;
        }
        const block = new Block(leading, leading);
        stack.push(block);
        open.push({ name, kind: 'block', block });
      },
      onclosetag() {
        if (skipDepth > 0) {
          skipDepth--;
          return;
        }
        flush();
        const element = open.pop();
        if (!element || element.kind === 'inline') return;
        if (element.kind === 'list') {
          if (!element.block) return;
          stack.pop();
          const listText = element.block.text();
          if (listText) top().addBlockText(listText, element.block.leadingLineBreaks, element.block.trailingLineBreaks);
          return;
        }
        const { block } = element;
        stack.pop();
        if (element.kind === 'item') top().addBlockText(ITEM_PREFIX + block.text().replace(/\n/g, ITEM_INDENT), block.leadingLineBreaks, Math.max(block.stashedLineBreaks, 1));
        else top().addBlockText(block.text(), block.leadingLineBreaks, Math.max(block.stashedLineBreaks, block.trailingLineBreaks));
      },
      ontext(data) {
        if (skipDepth > 0) return;
        if (text === '' && ++nodes > MAX_NODES) throw new NotHandled();
        text += data;
      },
      oncomment() {
        nodes++;
        if (skipDepth === 0 && inList()) throw new NotHandled();
        flush();
      },
      onprocessinginstruction() {
        nodes++;
        if (skipDepth === 0 && inList()) throw new NotHandled();
        flush();
      },
    },
    { decodeEntities: true },
  );
  try {
    parser.end(html);
  } catch (err) {
    if (err instanceof NotHandled) return null;
    throw err;
  }
  flush();
  return stack[0]!.text();
}
