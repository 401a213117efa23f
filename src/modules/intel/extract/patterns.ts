/**
 * Precompiled regular expressions for indicator extraction.
 *
 * Speed design: the text is never walked character by character in JS. A global TRIGGER regex jumps straight to
 * the few "structural" characters an indicator needs (a dot followed by a word char, '@', ':', '\', a defang
 * bracket, ' dot ', or a digit that starts a long alphanumeric run); irregexp scans for those at well over
 * 100 MB/s. Only at a trigger do we look back to the start of the word (WORD_BEFORE, a sticky lookbehind) and
 * run, at that token start, the few sticky classifiers that the trigger character makes possible.
 * Literal-prefixed indicators (CVE, ATT&CK, ASN, AWS keys…) get their own global regexes, which irregexp scans with a fast first-character search.
 *
 * Defanged forms are part of the patterns, so every match is an exact span of the ORIGINAL text.
 */

/** Characters that may appear in a hostname label (ASCII letters/digits/_ and non-punctuation Unicode letters). */
const UNICODE_LETTERS = String.raw`\u00c0-\u024f\u0370-\u1fff\u2c00-\u2dff\u3040-\ud7ff\uf900-\ufdcf\ufe70-\ufefe\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\uff66-\uffdc`;
export const LABEL_CHARS = `a-z0-9_${UNICODE_LETTERS}`;

/** A dot, plain or defanged. */
export const SEP_DOT = String.raw`(?:\.|\[\.\]|\(\.\)|\{\.\}|\[dot\]|\(dot\)|\{dot\}|\[ \. \]| \[dot\] | \(dot\) | \{dot\} | \[\.\] | dot |\\\.)`;
/** An '@', plain or defanged. */
export const SEP_AT = String.raw`(?:@|\[@\]|\(@\)|\{@\}|\[at\]|\(at\)|\{at\}| \[at\] | \(at\) | \[@\] )`;
/** A ':', plain or defanged. */
export const SEP_COLON = String.raw`(?::|\[:\]|\(:\)|\{:\})`;
/** '://' plain or defanged. */
export const SCHEME_SEP = String.raw`(?::\/\/|\[:\]\/\/|\(:\)\/\/|\{:\}\/\/|\[:\/\/\]|\[:\/\]\/|:\[\/\/\]|\[:\]\[\/\/\])`;
/** Web schemes with their defanged spellings, then any other scheme (tcp, udp, ssh…) last. */
export const SCHEME = String.raw`(?:h(?:tt|xx|\*\*|tx|xt|\[tt\]|\[xx\])ps?|fxp|ftps?|sftp|wss?|[a-z][a-z0-9+.-]{1,15})`;

const LABEL = `[${LABEL_CHARS}][${LABEL_CHARS}-]*`;
export const HOSTNAME = `${LABEL}(?:${SEP_DOT}${LABEL})+`;

/** URL path/query/fragment; defanged '[.]', '[/]'… allowed inside. Trailing punctuation is trimmed in code. */
const PATH_CHAR = String.raw`[^\s"'<>\[\]{}|\\^\x60\u2018-\u201f\u00ab\u00bb\u3000-\u303f]`;
export const PATH = String.raw`(?:[/?#]|\[\/\])(?:${PATH_CHAR}|\[(?:\.|\/|dot|:|@)\]|\{(?:\.|dot)\})*`;
/** What may follow a host outside a URL (consumed so that path segments are not re-scanned). */
const HOST_TAIL = String.raw`(?:${SEP_COLON}\d{1,5}(?!\d))?(?:${PATH})?`;

const IPV4_DEF = String.raw`\d{1,3}${SEP_DOT}\d{1,3}${SEP_DOT}\d{1,3}${SEP_DOT}\d{1,3}`;

// ---- sticky sub-patterns tried at a token start (capture groups are contiguous so offsets can be summed) ---

export const URL_SRC = String.raw`(${SCHEME})(${SCHEME_SEP})((?:[\w.%+-]+(?::[^\s@/\[\]]*)?(?:@|\[@\]))?)(\[[0-9a-f:.]+\]|${HOSTNAME}|${LABEL})(?:(${SEP_COLON})(\d{1,5})(?!\d))?(${PATH})?`;
export const EMAIL_SRC = String.raw`([\w%+-]+(?:(?:\.|\[\.\]|\(\.\))[\w%+-]+)*)(${SEP_AT})(${HOSTNAME})(?![${LABEL_CHARS}-])`;
// A component may hold spaces ("Windows NT", "Volatile Environment") when the next word starts like a
// name; a space before a bracket or parenthesis ends the key ("…\\Run\\LummaUpd (T1547.001)").
const REG_COMP = String.raw`[^\\\s"'<>|]+(?: (?=[A-Z0-9{])[^\\\s"'<>|]+){0,5}`;
export const REGISTRY_SRC = String.raw`(HKEY_(?:LOCAL_MACHINE|CURRENT_USER|CLASSES_ROOT|USERS|CURRENT_CONFIG|PERFORMANCE_DATA|DYN_DATA)|HK(?:LM|CU|CR|U|CC))(:?)((?:\\{1,2}(?:${REG_COMP})?)+)`;
const PATH_COMP = String.raw`[^\\\s"'<>|:*?]+(?: (?=[A-Za-z0-9(])[^\\\s"'<>|:*?]+){0,5}`;
export const WINPATH_SRC = String.raw`(?:[A-Za-z]:|%[A-Za-z_()0-9]+%|\\\\[\w.$-]+)(?:\\{1,2}${PATH_COMP})+`;
const ARN_SPACED = String.raw`(?<=\/)[\w.-]+(?: [\w.-]+){1,4}(?=\/)`;
export const ARN_SRC = String.raw`arn:(?:aws(?:-cn|-us-gov|-iso(?:-[a-z])?)?):[a-z0-9-]+:(?:[a-z0-9-]*|\*):(?:\d{12}|\*|aws)?:(?:${ARN_SPACED}|[\w.\-\/:*?+=,@$#{}])+`;
export const CERT_COLON_SRC = String.raw`[0-9a-f]{2}(?::[0-9a-f]{2}){19}(?:(?::[0-9a-f]{2}){12})?(?![:\w])`;
export const SSDEEP_SRC = String.raw`(\d{1,6}):([A-Za-z0-9/+]{3,64}):([A-Za-z0-9/+]{3,64})(?![\w/+:])`;
export const IPV6_SRC = String.raw`(?:[0-9a-f]{1,4}|:)(?::[0-9a-f]{0,4}){1,8}(?:(?:\.\d{1,3}){3})?(?![\w:]|\.\d)`;
export const VERSION_IP_SRC = String.raw`(?:v|ver\.? ?|version ?)(\d{1,3}(?:\.\d{1,3}){3})(?![\w.]|\.\d)`;
/** Not followed by another label: "1.0.0.127.in-addr.arpa" and "45.77.12.9.sslip.io" are host names, not addresses. */
export const IPV4_SRC = String.raw`${IPV4_DEF}(?![\w]|${SEP_DOT}\d|\.[a-z])`;
export const HOST_SRC = String.raw`${HOSTNAME}(?![${LABEL_CHARS}-])`;
/** Plain (non-defanged) fast paths, tried first: no defang alternations. */
export const IPV4_PLAIN_SRC = String.raw`\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\w]|\.\d|\.[a-z]|\[\.|\(\.|\[dot|\(dot)`;
export const HOST_PLAIN_SRC = String.raw`${LABEL}(?:\.${LABEL})+(?![${LABEL_CHARS}-])`;
/** Port and path after a host or IP outside a URL (consumed so that path segments are not re-scanned). */
export const TAIL_SRC = HOST_TAIL;

export const sticky = (src: string, flags = 'iy'): RegExp => new RegExp(src, flags);

// ---- the trigger scan ---------------------------------------------------------------------------------------

/**
 * Positions worth looking at. One leading character class (so irregexp can scan for it quickly), then a
 * lookbehind-dispatched check. ':' only before a word char, '/', '\' or '['; '.' only before a label char (so
 * sentence ends don't fire).
 */
export const TRIGGER_RE = new RegExp(
  String.raw`[.@:\\\[({](?:` +
    [
      String.raw`(?<=[.@])(?=[^\s.,;:!?'"()\[\]{}<>])`,
      String.raw`(?<=:)(?=[\w/\\\[:])`,
      String.raw`(?<=\\)(?=[\w\\])`,
      String.raw`(?<=[\[({])(?=(?:\.|dot|@|at|:|\/|:\/\/|:\/| \. )[\])}])`,
    ].join('|') +
    ')',
  'gi',
);

/** ASCII character classes for the hand-written scans: bit 1 alphanumeric, 2 hex digit. Index: char code < 128. */
export const ALNUM = 1;
export const HEXDIGIT = 2;
export const ASCII_CLASS: Uint8Array = (() => {
  const t = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    const ch = String.fromCharCode(c);
    if (/[0-9a-f]/i.test(ch)) t[c] = ALNUM | HEXDIGIT;
    else if (/[a-z]/i.test(ch)) t[c] = ALNUM;
  }
  return t;
})();
/** Class bits of the character at `i` (0 past the end or outside ASCII). */
export const charClass = (text: string, i: number): number => {
  const c = text.charCodeAt(i);
  return c < 128 ? (ASCII_CLASS[c] as number) : 0;
};

/**
 * Long alphanumeric runs (hashes, wallets, bare onion names): a digit followed by 15 more alphanumerics. Kept out
 * of TRIGGER_RE because digits are frequent; as its own consuming regex it costs a fraction. Match length 16.
 * (A hand-written skip loop that tests each window's 16th character first was no faster: docs/performance.md.)
 */
export const LONG_TRIGGER_RE = /[0-9][a-z0-9]{15}/gi;

/**
 * The bare " dot " defang (bracketed ones are caught by TRIGGER_RE at the bracket): a second, rarely matching
 * stream keyed on the letter 'd' so that irregexp does not stop at every space. The match is "dot " preceded by
 * "x " and followed by a non-space; the trigger position is the space before "dot" (lastIndex − 5).
 */
export const SPACED_TRIGGER_RE = /dot (?<=[^\s] dot )(?=[^\s])/gi;
// Every TRIGGER_RE match is exactly one character long, so `re.test()` + `lastIndex - 1` gives its position
// without allocating a match array.

/**
 * Characters that continue a token to the left of a trigger: the token start is found by stepping back over
 * these (a handful of characters, never past the previous token's end). Index: UTF-16 code unit.
 */
export const TOKEN_CHAR: Uint8Array = (() => {
  const t = new Uint8Array(65536);
  const re = new RegExp(`[\\w%+\\-${UNICODE_LETTERS}]`);
  for (let i = 0; i < 65536; i++) if (re.test(String.fromCharCode(i))) t[i] = 1;
  return t;
})();
/** Sticky: rest of an alphanumeric run (to skip past a long run after a digit trigger). */
export const WORD_AFTER_RE = /\w*/y;

// ---- literal-prefixed passes --------------------------------------------------------------------------------

/**
 * CVE ids, ATT&CK technique ids and AS numbers, each tried (sticky) only where its literal start occurs: "CVE",
 * "cve"/"Cve" (found as "ve"), "T1", "AS". A search for those literals runs at memory speed, while one regex over
 * the text stops at every 'c', 'T' and 'A' (passes.fns.ts merges the three streams in text order).
 */
export const CVE_AT_RE = /(?:CVE|cve|Cve)[-\u2010\u2011\u2013_ ]?(\d{4})[-\u2010\u2011\u2013_ ](\d{4,7})(?!\d)/y;
export const TECHNIQUE_AT_RE = /T1\d{3}(?:\.\d{3}|\/\d{3}(?!\d))?(?![\w]|\.\d)/y;
export const ASN_AT_RE = /AS(?:N ?)?(\d{1,10})(?!\d|\.\d)/y;
export const AWS_KEY_RE = /(?:AKIA|ASIA|AROA|AIDA|AGPA|AIPA|ANPA|ANVA|APKA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g;
export const AZURE_ID_RE =
  /(?:subscriptions?|tenant)(?:[ _-]?ids?)?[^\n\w]{0,4}(?:(?:is|=|:)[^\n\w]{0,3})?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![\w-])/gi;
export const GCP_PROJECT_RE = /projects\/([a-z][a-z0-9-]{4,28}[a-z0-9])(?![\w-])/g;

/** Characters that end a token on the left (for boundary checks of literal passes). */
export const WORDISH_BEFORE = /[\w-]/;
