/**
 * Refanging: turn defanged indicators (hxxp, [.], (dot), [at]…) back into their live form.
 *
 * `refang(text)` rewrites a whole text; `refangWithMap(text)` also returns an offset map so a span found in the
 * refanged text can be mapped back to the exact span in the ORIGINAL text. The extractor itself matches defanged
 * forms directly in the original text (so its spans are exact by construction) and only refangs short values.
 */

/**
 * One global regex; each alternative is a defang form. Order matters: space-wrapped forms before the bare ones.
 * Scheme forms only apply where a scheme separator follows, so the word "hxxp" in prose is left alone.
 */
const DEFANG_RE = new RegExp(
  [
    String.raw`(\bh(?:xx|\*\*|tx|xt|\[tt\]|\[xx\]|XX)p(s?)(?=\[:\]|\(:\)|\{:\}|\[:\/\/\]|:\/\/|\[:\/\]|:\[\/\/\]))`, // 1,2 scheme
    String.raw`(\bfxp(?=\[:\]|\(:\)|:\/\/|\[:\/\/\]))`, // 3 fxp -> ftp
    String.raw`(\[:\/\/\]|\[:\/\]\/|:\[\/\/\]|\[:\]\[\/\/\])`, // 4 -> ://
    String.raw`( \[(?:\.|dot)\] | \((?:\.|dot)\) | \{(?:\.|dot)\} |\[ \. \]|\[(?:\.|dot)\]|\((?:\.|dot)\)|\{(?:\.|dot)\}|(?<=[a-z0-9]) dot (?=[a-z0-9])|\\\.)`, // 5 -> .
    String.raw`( \[(?:@|at)\] | \((?:@|at)\) |\[(?:@|at)\]|\((?:@|at)\)|\{(?:@|at)\})`, // 6 -> @
    String.raw`(\[:\]|\(:\)|\{:\})`, // 7 -> :
    String.raw`(\[\/\])`, // 8 -> /
  ].join('|'),
  'gi',
);

/** Non-global twin of DEFANG_RE: does a value contain anything refang() would change? */
const HAS_DEFANG_RE = new RegExp(DEFANG_RE.source, 'i');
/** Cheap necessary condition for HAS_DEFANG_RE (a plain first-character search). */
const MAYBE_DEFANG_RE = /[[({\\]| dot |h[x*t][x*t]p|fxp/i;

export function isDefanged(value: string): boolean {
  return MAYBE_DEFANG_RE.test(value) && HAS_DEFANG_RE.test(value);
}

/** Defanged dot forms only (for hosts): '[.]', '(dot)', ' dot ', '\.'… → '.'. */
const HOST_DOTS_RE = / ?\[(?:\.|dot| \. )\] ?| ?\((?:\.|dot)\) ?| ?\{(?:\.|dot)\} ?| dot |\\\./gi;

/** Refang a host written with defanged dots ('evil[.]com', 'evil dot com'); other text is left alone. */
export function refangHost(host: string): string {
  return host.replace(HOST_DOTS_RE, '.');
}

function replacementFor(m: RegExpExecArray): string {
  if (m[1] !== undefined) return m[2] ? 'https' : 'http';
  if (m[3] !== undefined) return 'ftp';
  if (m[4] !== undefined) return '://';
  if (m[5] !== undefined) return '.';
  if (m[6] !== undefined) return '@';
  if (m[7] !== undefined) return ':';
  return '/';
}

/** Refang a whole text (or a single value). */
export function refang(text: string): string {
  if (!MAYBE_DEFANG_RE.test(text)) return text;
  DEFANG_RE.lastIndex = 0;
  let out = '';
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = DEFANG_RE.exec(text)) !== null) {
    out += text.slice(last, m.index) + replacementFor(m);
    last = m.index + m[0].length;
  }
  return last === 0 ? text : out + text.slice(last);
}

export interface RefangMap {
  /** The refanged text. */
  text: string;
  /**
   * Map an offset in the refanged text to the original text. Offsets inside a replacement map to the start of
   * the original defang form (side 'start') or its end (side 'end'), so a span [s, e) maps to the original
   * span that covers the same characters.
   */
  toOriginal(offset: number, side?: 'start' | 'end'): number;
  /** Map an original span to a refanged span. */
  toRefanged(offset: number): number;
}

/** Refang with an offset map (for callers that search the refanged text and need exact original spans). */
export function refangWithMap(text: string): RefangMap {
  // Parallel arrays: replacement k covers refanged [rs[k], re[k]) and original [os[k], oe[k]).
  const rs: number[] = [];
  const re: number[] = [];
  const os: number[] = [];
  const oe: number[] = [];
  DEFANG_RE.lastIndex = 0;
  let out = '';
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = DEFANG_RE.exec(text)) !== null) {
    const rep = replacementFor(m);
    out += text.slice(last, m.index);
    rs.push(out.length);
    out += rep;
    re.push(out.length);
    os.push(m.index);
    last = m.index + m[0].length;
    oe.push(last);
  }
  out += text.slice(last);

  const find = (arr: number[], x: number): number => {
    // last k with arr[k] <= x, or -1
    let lo = 0;
    let hi = arr.length - 1;
    let ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((arr[mid] as number) <= x) {
        ans = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return ans;
  };

  return {
    text: out,
    toOriginal(offset, side = 'start') {
      const k = find(rs, offset);
      if (k < 0) return offset;
      const r0 = rs[k] as number;
      const r1 = re[k] as number;
      if (offset >= r1) return offset - r1 + (oe[k] as number);
      if (offset === r0) return os[k] as number;
      return side === 'end' ? (oe[k] as number) : (os[k] as number);
    },
    toRefanged(offset) {
      const k = find(os, offset);
      if (k < 0) return offset;
      const o1 = oe[k] as number;
      if (offset >= o1) return offset - o1 + (re[k] as number);
      return rs[k] as number;
    },
  };
}

const SCHEME_BRACKETS_RE = /[[\]]/g;
const DEFANGED_WEB_SCHEME_RE = /^h(?:tt|xx|\*\*|tx|xt)ps?$/;
/** Refang a URL scheme as written ('hxxps', 'hXXp', 'h[tt]p', 'fxp') into its live lowercase form. */
export function refangScheme(scheme: string): string {
  // most schemes are written live: no replace, lowercase or regex for them (this ran once per URL)
  if (scheme === 'https' || scheme === 'http') return scheme;
  const s = scheme.replace(SCHEME_BRACKETS_RE, '').toLowerCase();
  if (DEFANGED_WEB_SCHEME_RE.test(s)) return s.endsWith('s') ? 'https' : 'http';
  if (s === 'fxp') return 'ftp';
  return s;
}
