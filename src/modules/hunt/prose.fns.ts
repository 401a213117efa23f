import { parseVersionList, versionContext } from '../intel/index.js';
import { compareVersions, versionParts } from './versions.fns.js';

/**
 * Whether a name found in advisory prose is named there as a product (docs/hunt.md "Prose").
 * Many packages are called after ordinary words or HTTP header names (`forwarded`,
 * `content-type`, `debug`, `send`, `ms`, `cookie`): a text saying "the Content-Type header" or
 * "requests forwarded by a proxy" is not about them. Pure, no I/O.
 */

// "Content-Type header", "cookie header", "the Forwarded request header", "debug option".
const NOT_A_PRODUCT_AFTER_RE = /^[\s'"`]*(?:(?:request|response|http)\s+)?(?:headers?|header\s+field|fields?|parameters?|attributes?|values?|propert(?:y|ies)|options?|methods?|functions?|directives?|flags?|mode|level|messages?|logs?|logging|output|strings?)\b/i;
// "the npm package undici", "PyPI package requests", "library ms".
const PACKAGE_BEFORE_RE = /\b(?:npm|pypi|maven|golang|go\s+module|crates?|gems?|nuget|packages?|library|libraries|modules?|dependency|dependencies)\s*[:'"`]?\s*$/i;
const PACKAGE_AFTER_RE = /^[\s'"`]*(?:npm\s+|pypi\s+|node(?:\.js)?\s+|python\s+)?(?:package|library|module|crate|gem|dependency)\b/i;

export interface ProseMention {
  namedAsProduct: boolean;
  /** The clause says the product is not affected. */
  negated: boolean;
  /** "fixed in", "upgrade to" right before the mention. */
  fixContext: boolean;
  fixAfter(versionsEnd: number): boolean;
}

/**
 * `packageOnly`: every inventory entry of this name is a package (it has a purl); such a name
 * counts only when the text marks it as a package: quoted or in backticks, "package"/"library"
 * around it, or followed by a version written as a version (`4.29.1`, "before 7.31.0").
 */
export function proseContext(text: string, start: number, end: number, packageOnly = false): ProseMention {
  // "Upgrade to `requests>=2.32.2`": the opening quote stands between the fix words and the name.
  const ctx = versionContext(text, /['"`]/.test(text[start - 1] ?? '') ? start - 1 : start, end);
  const mention = { negated: ctx.negated, fixContext: ctx.fixBefore, fixAfter: ctx.fixAfter };
  if (NOT_A_PRODUCT_AFTER_RE.test(text.slice(end, end + 40)) || text[end] === '-' || text[start - 1] === '-') return { ...mention, namedAsProduct: false };
  if (!packageOnly) return { ...mention, namedAsProduct: true };
  const before = text[start - 1];
  const quoted = !!before && /['"`]/.test(before) && text[end] === before;
  const packageWords = PACKAGE_BEFORE_RE.test(text.slice(Math.max(0, start - 30), start)) || PACKAGE_AFTER_RE.test(text.slice(end, end + 40));
  const versions = parseVersionList(text, end).versions;
  const versioned = versions.some((v) => /[<>=]|\d\.\d/.test(v));
  return { ...mention, namedAsProduct: quoted || packageWords || versioned };
}

/** A single version (a fix), not a range: `7.31.0`, `9.9p1`. */
export const PLAIN_VERSION = /^[\d.]+[\w.-]*$/;

// "Fixed in 7.31.0 and 6.21.1", "upgrade to Log4j 2.16.0", "backports … made available in versions
// 2.3.1, 2.12.2", "backported to 6.2.3": the versions after these are fixes, whatever product.
const FIX_LEAD_RE = /\b(?:(?:fixed|patched|resolved|addressed)\s+in|(?:upgrade|update|migrate)\s+to|made\s+available\s+in|backported\s+to)\s+(?:[A-Za-z][\w.-]*\s+)?(?:versions?\s+)?(?=[`'"]?v?\d)/gi;
// "Log4j version 2.15.0 contained an earlier fix".
const FIX_TRAIL_RE = /\bv?(\d+(?:\.\d+)+[\w.-]*)\s+(?:contain(?:s|ed)?|include[sd]?|ship(?:s|ped)?)\s+(?:an?\s+|the\s+)?(?:\w+\s+)?fix\b/gi;

/** Every version the text gives as a fix (product-less: the caller decides which product it is about). */
export function fixesInText(text: string): string[] {
  const out: string[] = [];
  const add = (v: string) => { if (PLAIN_VERSION.test(v) && !out.includes(v)) out.push(v); };
  for (const m of text.matchAll(FIX_LEAD_RE)) {
    const at = m.index! + m[0].length;
    for (const v of parseVersionList(text, text[at] && /[`'"]/.test(text[at]!) ? at + 1 : at).versions) add(v);
  }
  for (const m of text.matchAll(FIX_TRAIL_RE)) add(m[1]!);
  return out;
}

// "Only the `org.apache.logging.log4j:log4j-core` package is directly affected".
const ONLY_RE = /\bonly\s+(?:the\s+)?[`'"]?([\w.:/@-]+?)[`'"]?\s+(?:package|artifact|module|library|crate)\s+(?:is|was)\b/gi;

/** Package names the text says are the only affected ones (artifact part, normalized words). */
export function onlyPackagesIn(text: string, normalize: (s: string) => string): string[] {
  return [...text.matchAll(ONLY_RE)].map((m) => normalize(m[1]!.split(/[:/]/).pop()!));
}

/**
 * Whether fixes the text names cover an installed version: a fix on the version's own
 * major.minor line at or below it (a backport: 2.12.2 fixes 2.12.4, not 2.14.1), or the
 * version is at or above every fix of its major line ("fixed in 7.31.0 and 6.21.1": 6.29.1).
 * Returns the fix that still lies ahead of an unfixed version, if any.
 */
export function fixCoverage(version: string, fixes: readonly string[]): { fixed: boolean; next: string | null } {
  const [major, minor] = versionParts(version);
  const sameMajor = fixes.filter((f) => versionParts(f)[0] === major).sort(compareVersions);
  if (sameMajor.length === 0) return { fixed: false, next: null };
  const backport = sameMajor.some((f) => versionParts(f)[1] === minor && compareVersions(version, f) >= 0);
  const fixed = backport || compareVersions(version, sameMajor[sameMajor.length - 1]!) >= 0;
  const ahead = sameMajor.filter((f) => compareVersions(version, f) < 0);
  return { fixed, next: fixed ? null : (ahead.find((f) => versionParts(f)[1] === minor) ?? ahead[0] ?? null) };
}
