/**
 * Precompiled regular expressions for indicator extraction.
 *
 * Speed design: the text is never walked character by character in JS. A global TRIGGER regex jumps straight to
 * the few "structural" characters an indicator needs (a dot followed by a word char, '@', ':', '\', a defang
 * bracket, ' dot ', or a digit that starts a long alphanumeric run); irregexp scans for those at several hundred
 * MB/s. Only at a trigger do we look back to the start of the word (WORD_BEFORE, a sticky lookbehind) and run
 * the sticky MASTER alternation there once. Literal-prefixed indicators (CVE, ATT&CK, ASN, AWS keys…) get their
 * own global regexes, which irregexp scans with a fast first-character search.
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

// ---- sticky sub-patterns tried at a token start (each its own regex, with indices) -------------------------

export const URL_SRC = String.raw`(${SCHEME})(${SCHEME_SEP})((?:[\w.%+-]+(?::[^\s@/\[\]]*)?(?:@|\[@\]))?)(\[[0-9a-f:.]+\]|${HOSTNAME}|${LABEL})(?:(${SEP_COLON})(\d{1,5})(?!\d))?(${PATH})?`;
export const EMAIL_SRC = String.raw`([\w%+-]+(?:(?:\.|\[\.\]|\(\.\))[\w%+-]+)*)(${SEP_AT})(${HOSTNAME})(?![${LABEL_CHARS}-])`;
const REG_COMP = String.raw`[^\\\s"'<>|]+(?: (?=[A-Z0-9{(])[^\\\s"'<>|]+){0,5}`;
export const REGISTRY_SRC = String.raw`(HKEY_(?:LOCAL_MACHINE|CURRENT_USER|CLASSES_ROOT|USERS|CURRENT_CONFIG|PERFORMANCE_DATA|DYN_DATA)|HK(?:LM|CU|CR|U|CC))(:?)((?:\\{1,2}(?:${REG_COMP})?)+)`;
const PATH_COMP = String.raw`[^\\\s"'<>|:*?]+(?: (?=[A-Za-z0-9(])[^\\\s"'<>|:*?]+){0,5}`;
export const WINPATH_SRC = String.raw`(?:[A-Za-z]:|%[A-Za-z_()0-9]+%|\\\\[\w.$-]+)(?:\\{1,2}${PATH_COMP})+`;
const ARN_SPACED = String.raw`(?<=\/)[\w.-]+(?: [\w.-]+){1,4}(?=\/)`;
export const ARN_SRC = String.raw`arn:(?:aws(?:-cn|-us-gov|-iso(?:-[a-z])?)?):[a-z0-9-]+:(?:[a-z0-9-]*|\*):(?:\d{12}|\*|aws)?:(?:${ARN_SPACED}|[\w.\-\/:*?+=,@$#{}])+`;
export const CERT_COLON_SRC = String.raw`[0-9a-f]{2}(?::[0-9a-f]{2}){19}(?:(?::[0-9a-f]{2}){12})?(?![:\w])`;
export const SSDEEP_SRC = String.raw`(\d{1,6}):([A-Za-z0-9/+]{3,64}):([A-Za-z0-9/+]{3,64})(?![\w/+:])`;
export const IPV6_SRC = String.raw`(?:[0-9a-f]{1,4}|:)(?::[0-9a-f]{0,4}){1,8}(?:(?:\.\d{1,3}){3})?(?![\w:]|\.\d)`;
export const VERSION_IP_SRC = String.raw`(?:v|ver\.? ?|version ?)(\d{1,3}(?:\.\d{1,3}){3})(?![\w.]|\.\d)`;
export const IPV4_SRC = String.raw`(${IPV4_DEF})(?![\w]|${SEP_DOT}\d)(${HOST_TAIL})`;
export const HOST_SRC = String.raw`(${HOSTNAME})(?![${LABEL_CHARS}-])(${HOST_TAIL})`;
export const LONG_SRC = String.raw`[a-z0-9]{20,}(?!\w)`;

/** The alternation of everything above, in priority order; one exec per token decides which classifier runs. */
export const MASTER_ALTS = [
  URL_SRC,
  EMAIL_SRC,
  String.raw`HK(?:EY_|LM|CU|CR|U|CC)[A-Z_]*:?\\`, // registry: prefix only, the classifier has the full pattern
  String.raw`(?:[A-Za-z]:|%[A-Za-z_()0-9]+%|\\\\[\w.$-]+)\\`, // Windows path: prefix only
  ARN_SRC,
  CERT_COLON_SRC,
  SSDEEP_SRC,
  IPV6_SRC,
  VERSION_IP_SRC,
  IPV4_SRC,
  HOST_SRC,
  LONG_SRC,
] as const;

const groupCount = (src: string): number => (new RegExp(`(?:${src})|`).exec('') as RegExpExecArray).length - 1;

export const MASTER_RE = new RegExp(MASTER_ALTS.map((s) => `(${s})`).join('|'), 'iy');
/** MASTER_GROUP[k] = index of the capture group that wraps alternative k in MASTER_RE. */
export const MASTER_GROUP: readonly number[] = (() => {
  const out: number[] = [];
  let g = 1;
  for (const src of MASTER_ALTS) {
    out.push(g);
    g += 1 + groupCount(src);
  }
  return out;
})();

export const sticky = (src: string, flags = 'iy'): RegExp => new RegExp(src, `${flags}d`);

// ---- the trigger scan ---------------------------------------------------------------------------------------

/**
 * Positions worth looking at. One leading character class (so irregexp can scan for it quickly), then a
 * lookbehind-dispatched check. Digits only count when followed by 15+ alphanumerics (hashes, wallets, onion);
 * ':' only before a word char, '/', '\' or '['; '.' only before a label char (so sentence ends don't fire).
 */
export const TRIGGER_RE = new RegExp(
  String.raw`[.@:\\\[({0-9](?:` +
    [
      String.raw`(?<=[.@])(?=[\w\u0080-\uffff])`,
      String.raw`(?<=:)(?=[\w/\\\[:])`,
      String.raw`(?<=\\)(?=[\w\\])`,
      String.raw`(?<=[0-9])(?=[a-z0-9]{15})`,
      String.raw`(?<=[\[({])(?:\.|dot|@|at|:|\/|:\/\/| \. )[\])}]`,
    ].join('|') +
    ')',
  'gi',
);

/** The only triggers that start with a space (" dot ", " [at] "…): a second, rarely matching, stream. */
export const SPACED_TRIGGER_RE = / (?:dot|\[dot\]|\(dot\)|\{dot\}|\[\.\]|\[at\]|\(at\)|\[@\]) /gi;

/** Sticky lookbehind: the word right before a trigger (token start = trigger index − match length). */
export const WORD_BEFORE_RE = new RegExp(String.raw`(?<=([\w%\-${UNICODE_LETTERS}]*))`, 'y');
/** Sticky: rest of an alphanumeric run (to skip past a long run after a digit trigger). */
export const WORD_AFTER_RE = /\w*/y;

// ---- literal-prefixed passes --------------------------------------------------------------------------------

export const CVE_RE = /CVE[-\u2010\u2011\u2013_ ]?(\d{4})[-\u2010\u2011\u2013_ ](\d{4,7})(?!\d)/gi;
export const ATTACK_RE = /T1\d{3}(?:\.\d{3}|\/\d{3}(?!\d))?(?![\w]|\.\d)/g;
export const ASN_RE = /AS(?:N ?)?(\d{1,10})(?!\d|\.\d)/g;
export const AWS_KEY_RE = /(?:AKIA|ASIA|AROA|AIDA|AGPA|AIPA|ANPA|ANVA|APKA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g;
export const AZURE_ID_RE =
  /(?:subscriptions?|tenant)(?:[ _-]?ids?)?[^\n\w]{0,4}(?:(?:is|=|:)[^\n\w]{0,3})?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![\w-])/gi;
export const GCP_PROJECT_RE = /projects\/([a-z][a-z0-9-]{4,28}[a-z0-9])(?![\w-])/g;

/** Characters that end a token on the left (for boundary checks of literal passes). */
export const WORDISH_BEFORE = /[\w-]/;
