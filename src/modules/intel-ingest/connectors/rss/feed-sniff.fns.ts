import iconv from 'iconv-lite';
import { ConnectorParseError } from '../connector.js';

/**
 * Byte- and prolog-level work done before any parser sees a feed: choosing the character set,
 * refusing DTDs that declare entities, and finding the root element so the format is chosen by
 * what the document is rather than by what its Content-Type claims.
 */

export const ENTITY_DECLARATION_MESSAGE = 'Feed declares XML entities (DOCTYPE); refusing to parse';

/**
 * Labels that browsers (WHATWG Encoding) read as windows-1252: feeds labelled ISO-8859-1 are in
 * practice cp1252 (curly quotes, €, … in 0x80–0x9F), and the two agree everywhere else.
 */
const WINDOWS_1252_ALIASES = new Set(['iso-8859-1', 'iso8859-1', 'latin1', 'latin-1', 'l1', 'us-ascii', 'ascii', 'iso_8859-1', 'cp819']);

function normaliseCharset(label: string | null | undefined): string | null {
  if (!label) return null;
  const l = label.trim().replace(/^["']|["']$/g, '').toLowerCase();
  if (l === '') return null;
  const name = WINDOWS_1252_ALIASES.has(l) ? 'windows-1252' : l;
  return iconv.encodingExists(name) ? name : null;
}

/** `text/xml; charset="ISO-8859-1"` → `windows-1252` (see above); unknown labels → null. */
export function charsetFromContentType(contentType: string | null | undefined): string | null {
  const m = /;\s*charset\s*=\s*("[^"]*"|[^;\s]+)/i.exec(contentType ?? '');
  return normaliseCharset(m?.[1]);
}

function bomCharset(body: Buffer): { charset: string; length: number } | null {
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { charset: 'utf-8', length: 3 };
  if (body.length >= 2 && body[0] === 0xfe && body[1] === 0xff) return { charset: 'utf-16be', length: 2 };
  if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) return { charset: 'utf-16le', length: 2 };
  return null;
}

/** Reads `encoding="…"` from an ASCII-compatible XML declaration in the first bytes. */
function xmlDeclarationCharset(body: Buffer): string | null {
  const head = body.subarray(0, 512).toString('latin1');
  const m = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(head);
  return normaliseCharset(m?.[1]);
}

/**
 * Decodes the body: Content-Type charset, else a byte-order mark, else the XML declaration's
 * `encoding`, else UTF-8. The BOM is checked before the declaration because it is byte-level
 * evidence (and a UTF-16 declaration cannot even be read without it); a copy-pasted declaration
 * that contradicts a UTF-8 BOM is the commoner mistake. Undecodable bytes become U+FFFD rather
 * than failing the whole feed.
 */
export function decodeFeedBody(body: Buffer, contentType?: string | null): string {
  const bom = bomCharset(body);
  const charset = charsetFromContentType(contentType) ?? bom?.charset ?? xmlDeclarationCharset(body) ?? 'utf-8';
  const bytes = bom && bom.charset === charset ? body.subarray(bom.length) : body;
  // iconv-lite strips a matching BOM by default; strip any leftover one too.
  return iconv.decode(bytes, charset).replace(/^\ufeff/, '');
}

export interface XmlSniff {
  /** Qualified name of the root element, e.g. `rss`, `rdf:RDF`, `feed`, `html`; null if none. */
  root: string | null;
}

/**
 * Walks the markup once (linear: every step jumps with indexOf) to (a) refuse any DTD internal
 * subset or `<!ENTITY` declaration — the XXE and billion-laughs vectors — and (b) find the root
 * element. CDATA sections, comments, processing instructions and quoted attribute values are
 * skipped as units, so an article that quotes `<!ENTITY …>` inside CDATA is not refused, while a
 * declaration anywhere else (even after the root, where lenient parsers still honour it) is.
 * A DOCTYPE without an internal subset (`<!DOCTYPE rss PUBLIC "…" "…dtd">`, `<!DOCTYPE html>`) is
 * harmless here: nothing ever fetches external DTDs.
 */
export function sniffXml(text: string): XmlSniff {
  let root: string | null = null;
  let i = text.indexOf('<');
  while (i !== -1 && i < text.length) {
    let next: number;
    if (text.startsWith('<![CDATA[', i)) {
      next = endOf(text, ']]>', i + 9);
    } else if (text.startsWith('<!--', i)) {
      next = endOf(text, '-->', i + 4);
    } else if (text.startsWith('<?', i)) {
      next = endOf(text, '?>', i + 2);
    } else if (text.startsWith('<!', i)) {
      const keyword = text.slice(i + 2, i + 10).toUpperCase();
      if (keyword.startsWith('ENTITY')) throw new ConnectorParseError(ENTITY_DECLARATION_MESSAGE);
      const close = tagEnd(text, i + 2, keyword.startsWith('DOCTYPE'));
      next = close === -1 ? text.length : close + 1;
    } else {
      if (root === null) {
        const m = /^<([A-Za-z_][\w.:-]*)/.exec(text.slice(i, i + 200));
        if (m?.[1] !== undefined) root = m[1];
      }
      const close = tagEnd(text, i + 1, false);
      next = close === -1 ? text.length : close + 1;
    }
    i = text.indexOf('<', next);
  }
  return { root };
}

function endOf(text: string, marker: string, from: number): number {
  const at = text.indexOf(marker, from);
  return at === -1 ? text.length : at + marker.length;
}

/**
 * Index of the `>` closing a tag or declaration, skipping quoted strings. In a DOCTYPE, a `[`
 * outside quotes opens an internal subset, which is refused.
 */
function tagEnd(text: string, from: number, doctype: boolean): number {
  let i = from;
  while (i < text.length) {
    // Jump over the run of ordinary characters in one regex step (tags are mostly that).
    PLAIN_RUN.lastIndex = i;
    PLAIN_RUN.test(text);
    i = PLAIN_RUN.lastIndex;
    if (i >= text.length) break;
    const c = text.charCodeAt(i);
    if (c === 0x3e /* > */) return i;
    if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
      const close = text.indexOf(c === 0x22 ? '"' : "'", i + 1);
      if (close === -1) return -1;
      i = close + 1;
      continue;
    }
    if (doctype && c === 0x5b /* [ */) throw new ConnectorParseError(ENTITY_DECLARATION_MESSAGE);
    // A `<` inside a tag means the tag was never closed; let the parser report it.
    if (c === 0x3c /* < */ && !doctype) return i - 1;
    i++;
  }
  return -1;
}

const PLAIN_RUN = /[^"'<>[]*/y;

/** Local part of a qualified name: `rdf:RDF` → `RDF`. */
export function localName(qname: string): string {
  const colon = qname.indexOf(':');
  return colon === -1 ? qname : qname.slice(colon + 1);
}
