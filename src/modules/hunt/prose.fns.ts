import { parseVersionList, versionContext } from '../intel/index.js';

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
  const ctx = versionContext(text, start, end);
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
