import { StixPatternError } from './stix-pattern-ast.js';

/**
 * Tokenizer for STIX 2.1 patterns, after the lexer rules of the OASIS grammar (STIXPattern.g4 in
 * cti-pattern-validator). Keywords are not recognised here: they come out as `word` tokens and the
 * parser decides by position, so a property that happens to be called `last` or `in` still works.
 */

export type TokenKind =
  | 'word'
  | 'string'
  | 'int'
  | 'float'
  | 'timestamp'
  | 'hex'
  | 'binary'
  | 'op'
  | '['
  | ']'
  | '('
  | ')'
  | ':'
  | '.'
  | ','
  | '*'
  | 'eof';

export interface Token {
  kind: TokenKind;
  /** Decoded value for literals (string without quotes and escapes), else the source text. */
  value: string;
  /** Offset of the first character in the pattern. */
  pos: number;
  /** Offset just after the last character. */
  end: number;
}

/** Spelled operators; anything else made of these characters is reported as an unknown operator. */
export const KNOWN_OPERATORS = new Set(['=', '==', '!=', '<>', '<', '<=', '>', '>=']);
const OPERATOR_CHARS = '=!<>~&|^%';
const PUNCTUATION = new Set(['[', ']', '(', ')', ':', '.', ',', '*']);

// The grammar's TimestampLiteral: calendar-shaped fields, optional fraction, always UTC ('Z').
const TIMESTAMP_RE =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)(?:\.\d+)?Z$/;
const HEX_RE = /^(?:[0-9A-Fa-f]{2})*$/;
// The grammar's BinaryLiteral: non-empty base64 with correct '=' padding.
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2}==)$/;

export function isStixTimestamp(s: string): boolean {
  return TIMESTAMP_RE.test(s);
}

// The grammar's WS rule: ASCII and Unicode spaces (JS \s lacks U+0085, the grammar includes it).
function isSpace(c: string): boolean {
  return c === ' ' || (c > '~' || c < '!' ? /\s/.test(c) || c === '\u0085' : false);
}

function isWordStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
}

function isWordChar(c: string): boolean {
  return isWordStart(c) || (c >= '0' && c <= '9') || c === '-';
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function show(s: string): string {
  return s.length > 40 ? `${s.slice(0, 39)}…` : s;
}

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const at = (k: number): string => src.charAt(k);

  while (i < src.length) {
    const c = at(i);
    if (isSpace(c)) {
      i += 1;
      continue;
    }
    // Comments are allowed by the grammar (and skipped), so producers may annotate patterns.
    if (c === '/' && at(i + 1) === '*') {
      const close = src.indexOf('*/', i + 2);
      if (close < 0) throw new StixPatternError('Unterminated comment: "/*" has no closing "*/"', i);
      i = close + 2;
      continue;
    }
    if (c === '/' && at(i + 1) === '/') {
      while (i < src.length && at(i) !== '\n' && at(i) !== '\r') i += 1;
      continue;
    }

    const start = i;
    if (c === "'") {
      const { value, end } = readString(src, i);
      tokens.push({ kind: 'string', value, pos: start, end });
      i = end;
      continue;
    }

    // h'…', b'…', t'…': a one-letter prefix glued to a quote. Their bodies have no escapes.
    if ((c === 'h' || c === 'b' || c === 't') && at(i + 1) === "'") {
      const close = src.indexOf("'", i + 2);
      if (close < 0) throw new StixPatternError(`Unterminated ${c}'…' literal`, start);
      const body = src.slice(i + 2, close);
      const kind = c === 'h' ? 'hex' : c === 'b' ? 'binary' : 'timestamp';
      if (kind === 'hex' && !HEX_RE.test(body)) {
        throw new StixPatternError(`Invalid hex literal h'${show(body)}': expected pairs of hex digits`, start);
      }
      if (kind === 'binary' && !BASE64_RE.test(body)) {
        throw new StixPatternError(`Invalid binary literal b'${show(body)}': expected base64`, start);
      }
      if (kind === 'timestamp' && !TIMESTAMP_RE.test(body)) {
        throw new StixPatternError(
          `Invalid timestamp t'${show(body)}': expected YYYY-MM-DDTHH:MM:SS[.fraction]Z`,
          start,
        );
      }
      tokens.push({ kind, value: body, pos: start, end: close + 1 });
      i = close + 1;
      continue;
    }

    if (isWordStart(c)) {
      while (i < src.length && isWordChar(at(i))) i += 1;
      tokens.push({ kind: 'word', value: src.slice(start, i), pos: start, end: i });
      continue;
    }

    // Numbers: [+-]? digits, or [+-]? digits? '.' digits. A '.' not followed by a digit is
    // the path separator, a sign not followed by a number is an error.
    const signed = c === '+' || c === '-';
    const n0 = signed ? i + 1 : i;
    if (isDigit(at(n0)) || (at(n0) === '.' && isDigit(at(n0 + 1)))) {
      let j = n0;
      while (isDigit(at(j))) j += 1;
      let kind: 'int' | 'float' = 'int';
      if (at(j) === '.' && isDigit(at(j + 1))) {
        kind = 'float';
        j += 1;
        while (isDigit(at(j))) j += 1;
      }
      if (isWordStart(at(j))) {
        throw new StixPatternError(`Invalid number "${show(src.slice(start, j + 1))}…"`, start);
      }
      tokens.push({ kind, value: src.slice(start, j), pos: start, end: j });
      i = j;
      continue;
    }

    if (OPERATOR_CHARS.includes(c)) {
      while (i < src.length && OPERATOR_CHARS.includes(at(i))) i += 1;
      tokens.push({ kind: 'op', value: src.slice(start, i), pos: start, end: i });
      continue;
    }

    if (PUNCTUATION.has(c)) {
      tokens.push({ kind: c as TokenKind, value: c, pos: start, end: i + 1 });
      i += 1;
      continue;
    }

    if (c === '"') {
      throw new StixPatternError('Unexpected \'"\': STIX pattern strings use single quotes', start);
    }
    throw new StixPatternError(`Unexpected character ${JSON.stringify(c)}`, start);
  }
  tokens.push({ kind: 'eof', value: '', pos: src.length, end: src.length });
  return tokens;
}

/**
 * A '…' string starting at `start`. The grammar's escapes are `\'` and `\\`. A backslash before
 * any other character is invalid per the grammar but common in the wild (unescaped Windows paths,
 * regexes); it is kept as a literal backslash rather than losing the whole indicator.
 */
function readString(src: string, start: number): { value: string; end: number } {
  let out = '';
  let i = start + 1;
  while (i < src.length) {
    const c = src.charAt(i);
    if (c === "'") return { value: out, end: i + 1 };
    if (c === '\\') {
      const next = src.charAt(i + 1);
      if (next === "'" || next === '\\') {
        out += next;
        i += 2;
        continue;
      }
    }
    out += c;
    i += 1;
  }
  throw new StixPatternError('Unterminated string: no closing quote', start);
}
