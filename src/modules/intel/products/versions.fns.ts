/**
 * Version expressions as advisories write them, after a product name. Pure, no I/O.
 *
 * Notation of the results (one string per version or range):
 * - a single version: `7.0.12`, a wildcard: `7.x`;
 * - "1.2 through 1.4", "7.0.0 to 7.0.12", "1.2-1.4": `>=1.2 <=1.4`;
 * - "before 2.3.1", "prior to 2.3.1", "earlier than 2.3.1": `<2.3.1`;
 * - "up to 2.3", "through 2.3", "2.3 and earlier", "2.3 and prior": `<=2.3`;
 * - "2.3 and later", "2.3+": `>=2.3`.
 * Lists ("7.0, 7.2 and 7.4", "9.x and 22.x") give one entry each.
 */

/** 7.0.12, 7.x, 9.1R14, 22.7R2.1, 12.2(55)SE, 2.0-beta9, 2019. */
const VER = String.raw`\d+(?:\.(?:\d+|[xX*]))*(?:[-_]?[A-Za-z]{1,6}\d*(?:\.\d+)*)?(?:\(\d+[A-Za-z]*\d*\)[A-Za-z]*\d*)?(?![\p{L}\p{N}])(?!\.\p{N})`;
const V = String.raw`[vV]?(${VER})`;
const VERS = String.raw`(?:versions?\s+)?`;

const ITEMS: ReadonlyArray<[RegExp, (m: RegExpExecArray) => string]> = [
  [new RegExp(String.raw`(?:from\s+)?${V}\s*(?:through|thru|to|until|-|–|—)\s*${VERS}${V}`, 'iuy'), (m) => `>=${m[1]} <=${m[2]}`],
  [new RegExp(String.raw`(?:before|prior\s+to|earlier\s+than|older\s+than|lower\s+than|below|<)\s*${VERS}${V}`, 'iuy'), (m) => `<${m[1]}`],
  [new RegExp(String.raw`(?:up\s+to(?:\s+and\s+including)?|through|<=|≤)\s*${VERS}${V}`, 'iuy'), (m) => `<=${m[1]}`],
  [new RegExp(String.raw`${V}\s*,?\s*(?:and|or|&)\s+(?:earlier|prior|older|below|lower|before)\b`, 'iuy'), (m) => `<=${m[1]}`],
  [new RegExp(String.raw`${V}\s*,?\s*(?:and|or)\s+(?:later|newer|above|higher|greater|after)\b`, 'iuy'), (m) => `>=${m[1]}`],
  [new RegExp(String.raw`${V}\+`, 'iuy'), (m) => `>=${m[1]}`],
  [new RegExp(String.raw`(?:>=|≥)\s*${V}`, 'iuy'), (m) => `>=${m[1]}`],
  [new RegExp(V, 'uy'), (m) => m[1] ?? ''],
];

/** Words allowed between a product name and its versions ("IOS XE Software 17.3", "NAS326 firmware versions …"). */
const LEAD_RE = /\s*(?:[,(]\s*)?(?:(?:firmware|software|appliances?|devices?|servers?|series|editions?)\s+){0,3}(?:(?:versions?|ver\.?|releases?|builds?)\s*(?:released\s+)?)?/iy;
const SEP_RE = /\s*(?:,\s*(?:and\s+|or\s+)?|;\s*|\s(?:and|or|&)\s+|\/\s*)(?:versions?\s+)?/iy;

function eat(re: RegExp, text: string, pos: number): RegExpExecArray | null {
  re.lastIndex = pos;
  return re.exec(text);
}

function parseItem(text: string, pos: number): { version: string; end: number } | null {
  for (const [re, build] of ITEMS) {
    const m = eat(re, text, pos);
    if (m) return { version: build(m), end: pos + m[0].length };
  }
  return null;
}

export interface VersionList {
  versions: string[];
  /** Index just after the last version consumed (for passage spans); `pos` when none. */
  end: number;
}

/** Parses the version expression starting at `pos` (e.g. just after a product name). */
export function parseVersionList(text: string, pos: number): VersionList {
  const lead = eat(LEAD_RE, text, pos);
  let at = pos + (lead ? lead[0].length : 0);
  const versions: string[] = [];
  let end = pos;
  for (;;) {
    const item = parseItem(text, at);
    if (!item) break;
    if (!versions.includes(item.version)) versions.push(item.version);
    end = item.end;
    const sep = eat(SEP_RE, text, end);
    if (!sep) break;
    at = end + sep[0].length;
  }
  return { versions, end };
}

/**
 * A version expression that ends right before `pos` in the "versions 7.0.0 through 7.0.12 of
 * [Vendor] Product" order. `from` bounds the search (e.g. the sentence start).
 */
export function parseVersionsBefore(text: string, from: number, pos: number): VersionList | null {
  const before = text.slice(Math.max(from, pos - 160), pos);
  const m = /(?:^|\s)(?:versions?|releases?)\s+(.{1,120}?)\s+of\s+(?:the\s+)?$/iu.exec(before);
  if (!m || m[1] === undefined) return null;
  const list = parseVersionList(m[1], 0);
  if (list.versions.length === 0 || m[1].slice(list.end).trim() !== '') return null;
  return list;
}
