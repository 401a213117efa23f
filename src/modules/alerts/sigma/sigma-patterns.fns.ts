/**
 * Sigma string values as patterns: a sequence of literal text and the two wildcards (`*` any run
 * of characters, `?` one character), read with the specification's escaping (`\*`, `\?`, `\\`;
 * a backslash before anything else is itself). The value modifiers that rewrite strings
 * (contains, startswith, endswith, windash, utf16*, wide, base64, base64offset, expand) work on
 * this form, and a finished pattern becomes the cheapest test that decides it: equality, prefix,
 * suffix or substring on lower-cased text when it can, a regular expression only when a wildcard
 * sits inside the value.
 */

export const STAR = 0 as const;
export const QMARK = 1 as const;
export type Token = string | typeof STAR | typeof QMARK;
/** A pattern: literal strings and wildcards. `bytes` is set once utf16/wide made it a byte string. */
export interface Pattern {
  tokens: Token[];
  bytes?: boolean;
}

/** Reads a Sigma string value with its wildcards and escapes. */
export function parsePattern(value: string): Pattern {
  const tokens: Token[] = [];
  let lit = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\') {
      const next = value[i + 1];
      if (next === '*' || next === '?' || next === '\\') {
        lit += next;
        i++;
      } else lit += c;
    } else if (c === '*' || c === '?') {
      if (lit) tokens.push(lit);
      lit = '';
      tokens.push(c === '*' ? STAR : QMARK);
    } else lit += c;
  }
  if (lit) tokens.push(lit);
  return { tokens };
}

/** A plain literal (numbers, the output of base64): no wildcard. */
export const literalPattern = (value: string): Pattern => ({ tokens: value ? [value] : [] });

export const hasWildcard = (p: Pattern): boolean => p.tokens.some((t) => typeof t !== 'string');

export function withLeadingStar(p: Pattern): Pattern {
  return p.tokens[0] === STAR ? p : { ...p, tokens: [STAR, ...p.tokens] };
}
export function withTrailingStar(p: Pattern): Pattern {
  return p.tokens[p.tokens.length - 1] === STAR ? p : { ...p, tokens: [...p.tokens, STAR] };
}

/** The pattern's literal text (for base64 and the utf16 encodings, which refuse wildcards). */
export function plainText(p: Pattern): string | null {
  if (hasWildcard(p)) return null;
  return p.tokens.join('');
}

const WINDASH_CHARS = ['-', '/', '\u2013', '\u2014', '\u2015'];
/**
 * `windash`: every `-` or `/` that starts a word after a non-word character (pySigma's `\B[-/]\b`)
 * in each of its Windows spellings (dash, slash, en dash, em dash, horizontal bar). Variants are
 * the product of the choices, capped so that a value with many flags stays bounded.
 */
export function windashVariants(p: Pattern): Pattern[] {
  let variants: Token[][] = [[]];
  for (const t of p.tokens) {
    if (typeof t !== 'string') {
      variants = variants.map((v) => [...v, t]);
      continue;
    }
    // Split the literal at the positions that windash replaces. `\B[-/]\b`: the dash is not
    // preceded by a word boundary (start, or a non-word character before it) and is followed by one.
    const pieces: Array<string | null> = [];
    let cur = '';
    for (let i = 0; i < t.length; i++) {
      const c = t[i]!;
      const prevWord = i > 0 && /\w/.test(t[i - 1]!);
      const nextWord = i + 1 < t.length && /\w/.test(t[i + 1]!);
      if ((c === '-' || c === '/') && !prevWord && nextWord) {
        pieces.push(cur, null);
        cur = '';
      } else cur += c;
    }
    pieces.push(cur);
    for (const piece of pieces) {
      if (piece === null) {
        const next: Token[][] = [];
        for (const v of variants) for (const ch of WINDASH_CHARS) next.push([...v, ch]);
        variants = next.slice(0, 4096);
      } else if (piece) variants = variants.map((v) => [...v, piece]);
    }
  }
  return variants.map((tokens) => ({ ...p, tokens: mergeLiterals(tokens) }));
}

function mergeLiterals(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (const t of tokens) {
    const last = out[out.length - 1];
    if (typeof t === 'string' && typeof last === 'string') out[out.length - 1] = last + t;
    else if (t !== '') out.push(t);
  }
  return out;
}

/** utf16le / utf16be / utf16 (with its byte-order mark) / wide: the text as bytes, one char per byte. */
export function encodeUtf16(p: Pattern, form: 'utf16le' | 'utf16be' | 'utf16'): Pattern {
  const mapLit = (s: string) => {
    const le = Buffer.from(s, 'utf16le');
    if (form === 'utf16be') le.swap16();
    return le.toString('latin1');
  };
  const tokens = p.tokens.map((t) => (typeof t === 'string' ? mapLit(t) : t));
  if (form === 'utf16') tokens.unshift('\xff\xfe');
  return { tokens: mergeLiterals(tokens), bytes: true };
}

const bytesOf = (p: Pattern, text: string): Buffer => Buffer.from(text, p.bytes ? 'latin1' : 'utf8');

export function base64Of(p: Pattern): Pattern | null {
  const text = plainText(p);
  if (text === null) return null;
  return literalPattern(bytesOf(p, text).toString('base64'));
}

/**
 * `base64offset`: the three encodings of the value at each byte offset within a base64 group,
 * trimmed of the characters that depend on the bytes around it (pySigma's start offsets 0, 2, 3
 * and end offsets none, -3, -2), so that a substring search finds the value anywhere in a
 * base64 text.
 */
export function base64OffsetOf(p: Pattern): Pattern[] | null {
  const text = plainText(p);
  if (text === null) return null;
  const val = bytesOf(p, text);
  const starts = [0, 2, 3];
  const ends = [undefined, -3, -2];
  const out: Pattern[] = [];
  for (let i = 0; i < 3; i++) {
    const b64 = Buffer.concat([Buffer.alloc(i, 0x20), val]).toString('base64');
    const end = ends[(val.length + i) % 3];
    out.push(literalPattern(b64.slice(starts[i], end)));
  }
  return out;
}

/** Sigma's `expand`: `%name%` placeholders replaced by each of their values. */
export function expandPlaceholders(p: Pattern, values: (name: string) => string[] | undefined): { patterns: Pattern[] } | { missing: string } {
  let variants: Token[][] = [[]];
  for (const t of p.tokens) {
    if (typeof t !== 'string') {
      variants = variants.map((v) => [...v, t]);
      continue;
    }
    const parts = t.split(/(%[A-Za-z0-9_.-]+%)/);
    for (const part of parts) {
      if (!part) continue;
      const m = /^%([A-Za-z0-9_.-]+)%$/.exec(part);
      if (!m) {
        variants = variants.map((v) => [...v, part]);
        continue;
      }
      const vals = values(m[1]!);
      if (!vals || vals.length === 0) return { missing: m[1]! };
      const next: Token[][] = [];
      for (const v of variants) for (const val of vals) next.push([...v, ...parsePattern(val).tokens]);
      variants = next.slice(0, 4096);
    }
  }
  return { patterns: variants.map((tokens) => ({ ...p, tokens: mergeLiterals(tokens) })) };
}

/** A string test decided once at compile time: `text` is the event value, lower-cased unless cased. */
export type StringTest = (text: string) => boolean;

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The fastest test for a pattern. `cased` false lower-cases the pattern here and expects the
 * caller to lower-case the event's value once (shared by every rule that reads that field).
 */
export function compilePattern(p: Pattern, cased: boolean): StringTest {
  const tokens = cased ? p.tokens : p.tokens.map((t) => (typeof t === 'string' ? t.toLowerCase() : t));
  const n = tokens.length;
  if (n === 0) return (s) => s === '';
  if (n === 1 && typeof tokens[0] === 'string') {
    const lit = tokens[0];
    return (s) => s === lit;
  }
  if (n === 1 && tokens[0] === STAR) return () => true;
  if (n === 2 && tokens[0] === STAR && typeof tokens[1] === 'string') {
    const lit = tokens[1];
    return (s) => s.endsWith(lit);
  }
  if (n === 2 && tokens[1] === STAR && typeof tokens[0] === 'string') {
    const lit = tokens[0];
    return (s) => s.startsWith(lit);
  }
  if (n === 3 && tokens[0] === STAR && tokens[2] === STAR && typeof tokens[1] === 'string') {
    const lit = tokens[1];
    return (s) => s.includes(lit);
  }
  const source = tokens.map((t) => (t === STAR ? '[\\s\\S]*' : t === QMARK ? '[\\s\\S]' : escapeRegex(t))).join('');
  const re = new RegExp(`^${source}$`);
  return (s) => re.test(s);
}

/** The longest literal a matching value must contain (lower-cased), for the rule's pre-filter. */
export function requiredLiteral(p: Pattern): string {
  let best = '';
  for (const t of p.tokens) if (typeof t === 'string' && t.length > best.length) best = t;
  return best.toLowerCase();
}
