/**
 * CPE name matching as NIST IR 7696 (CPE Name Matching 2.3) defines it, on names bound as the
 * CPE 2.3 formatted string (NIST IR 7695 §6.2) or the 2.2 URI (§6.1). Every one of the eleven
 * attributes is compared: ANY (`*`) is a superset of everything, NA (`-`) only equals NA, a value
 * equals the same value (case-insensitive), and a value with unquoted wildcards (`*`, `?` at its
 * start or end) is a superset of the values it matches. So edition NA and edition `fips` are
 * disjoint, and a range of `…:*:*:-:…` never speaks for a FIPS build. Pure, no I/O.
 */

export const CPE_ATTRIBUTES = ['part', 'vendor', 'product', 'version', 'update', 'edition', 'language', 'sw_edition', 'target_sw', 'target_hw', 'other'] as const;
export type CpeAttribute = (typeof CPE_ATTRIBUTES)[number];

/** A WFN attribute value: a logical value, or a string in the WFN's quoted form (`8\.0\.6001`, `sp?`). */
export type WfnValue = { kind: 'any' } | { kind: 'na' } | { kind: 'value'; quoted: string };
export type Wfn = Record<CpeAttribute, WfnValue>;

export type Relation = 'superset' | 'subset' | 'equal' | 'disjoint' | 'undefined';

const ANY: WfnValue = { kind: 'any' };
const NA: WfnValue = { kind: 'na' };

/**
 * One formatted-string component → its WFN value (IR 7695 §6.2.3, unbind_value_fs): `*` alone is
 * ANY, `-` alone is NA; a backslash quotes the next character; unquoted `*` and `?` stay
 * wildcards; any other non-alphanumeric character (`.`, `-`, `~`) is quoted, as a WFN requires.
 */
function unbindFsValue(s: string): WfnValue {
  if (s === '*' || s === '') return ANY;
  if (s === '-') return NA;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length) out += `\\${s[++i]}`;
    else if (/[A-Za-z0-9_]/.test(c) || c === '*' || c === '?') out += c;
    else out += `\\${c}`;
  }
  return { kind: 'value', quoted: out.toLowerCase() };
}

/** Splits a formatted string on its unquoted colons, keeping the backslash escapes. */
function splitFs(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length) cur += c + s[++i];
    else if (c === ':') out.push(cur), (cur = '');
    else cur += c;
  }
  out.push(cur);
  return out;
}

/** One URI component → its WFN value (IR 7695 §6.1.3, decode): empty is ANY, `-` is NA, `%01` is `?`, `%02` is `*`. */
function unbindUriValue(s: string): WfnValue {
  if (s === '') return ANY;
  if (s === '-') return NA;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '%' && i + 2 < s.length + 1) {
      const code = s.slice(i, i + 3).toLowerCase();
      i += 2;
      if (code === '%01') out += '?';
      else if (code === '%02') out += '*';
      else {
        const ch = String.fromCharCode(Number.parseInt(code.slice(1), 16));
        out += /[A-Za-z0-9_]/.test(ch) ? ch : `\\${ch}`;
      }
    } else out += /[A-Za-z0-9_]/.test(c) ? c : `\\${c}`;
  }
  return { kind: 'value', quoted: out.toLowerCase() };
}

/**
 * A CPE name (2.3 formatted string, or 2.2 URI with its packed `~` edition) → WFN; null when it is
 * neither. Missing trailing components are ANY, as both bindings define.
 */
export function parseWfn(raw: string): Wfn | null {
  const s = raw.trim();
  const wfn = Object.fromEntries(CPE_ATTRIBUTES.map((a) => [a, ANY])) as Wfn;
  if (/^cpe:2\.3:/i.test(s)) {
    const parts = splitFs(s).slice(2);
    if (parts.length > CPE_ATTRIBUTES.length) return null;
    parts.forEach((p, i) => (wfn[CPE_ATTRIBUTES[i]!] = unbindFsValue(p)));
  } else if (/^cpe:\//i.test(s)) {
    const parts = s.slice(5).split(':');
    if (parts.length > 7) return null;
    const uriAttrs = ['part', 'vendor', 'product', 'version', 'update', 'edition', 'language'] as const;
    parts.forEach((p, i) => {
      const attr = uriAttrs[i]!;
      // The packed edition: ~edition~sw_edition~target_sw~target_hw~other.
      if (attr === 'edition' && p.startsWith('~')) {
        const packed = p.slice(1).split('~');
        (['edition', 'sw_edition', 'target_sw', 'target_hw', 'other'] as const).forEach((a, j) => (wfn[a] = unbindUriValue(packed[j] ?? '')));
      } else wfn[attr] = unbindUriValue(p);
    });
  } else return null;
  const part = wfn.part;
  if (part.kind === 'value' && !['a', 'o', 'h'].includes(part.quoted)) return null;
  return wfn;
}

/** Whether a quoted WFN string has an unquoted wildcard (`*` or `?`). */
function hasWildcards(q: string): boolean {
  for (let i = 0; i < q.length; i++) {
    if (q[i] === '\\') i++;
    else if (q[i] === '*' || q[i] === '?') return true;
  }
  return false;
}

/** Whether the character at `idx` is preceded by an even number of backslashes (so it is unquoted). */
function unquotedAt(q: string, idx: number): boolean {
  let n = 0;
  for (let i = idx - 1; i >= 0 && q[i] === '\\'; i--) n++;
  return n % 2 === 0;
}

function countEscapes(q: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (q[i] === '\\') n++, i++;
  return n;
}

/**
 * IR 7696 §6.1.3.2 compare_strings: a source string with wildcards at its start or end against a
 * wildcard-free target. A leading `*` matches any prefix, leading `?`s at most that many
 * characters; the same at the end.
 */
function compareStrings(source: string, target: string): Relation {
  let start = 0;
  let end = source.length;
  let begins = 0;
  let ends = 0;
  if (source[0] === '*') start = 1, (begins = -1);
  else while (start < source.length && source[start] === '?') start++, begins++;
  if (end > start && source[end - 1] === '*' && unquotedAt(source, end - 1)) end--, (ends = -1);
  else while (end > start && source[end - 1] === '?' && unquotedAt(source, end - 1)) end--, ends++;
  const body = source.slice(start, end);
  let index = -1;
  let leftover = target.length;
  while (leftover > 0) {
    index = target.indexOf(body, index + 1);
    if (index === -1) break;
    if (index > 0 && begins !== -1 && begins < index - countEscapes(target, 0, index)) break;
    leftover = target.length - index - countEscapes(target, index + 1, target.length) - body.length;
    if (leftover > 0 && ends !== -1 && leftover > ends) continue;
    return 'superset';
  }
  return 'disjoint';
}

/** IR 7696 §6.1.3.1 compare(source, target): the relation of one attribute's values (Table 6-2). */
export function compareValues(source: WfnValue, target: WfnValue): Relation {
  if (target.kind === 'value' && hasWildcards(target.quoted)) return 'undefined';
  if (source.kind === target.kind && (source.kind !== 'value' || source.quoted === (target as { quoted: string }).quoted)) return 'equal';
  if (source.kind === 'any') return 'superset';
  if (target.kind === 'any') return 'subset';
  if (source.kind === 'na' || target.kind === 'na') return 'disjoint';
  return compareStrings((source as { quoted: string }).quoted, (target as { quoted: string }).quoted);
}

export function compareWfns(source: Wfn, target: Wfn, skip: readonly CpeAttribute[] = []): Record<CpeAttribute, Relation> {
  return Object.fromEntries(CPE_ATTRIBUTES.map((a) => [a, skip.includes(a) ? 'equal' : compareValues(source[a], target[a])])) as Record<CpeAttribute, Relation>;
}

/** IR 7696 §6.2: the name-level relations over every attribute's relation. */
export function cpeDisjoint(r: Record<CpeAttribute, Relation>): boolean {
  return CPE_ATTRIBUTES.some((a) => r[a] === 'disjoint');
}
export function cpeEqual(r: Record<CpeAttribute, Relation>): boolean {
  return CPE_ATTRIBUTES.every((a) => r[a] === 'equal');
}
export function cpeSubset(r: Record<CpeAttribute, Relation>): boolean {
  return CPE_ATTRIBUTES.every((a) => r[a] === 'subset' || r[a] === 'equal');
}
export function cpeSuperset(r: Record<CpeAttribute, Relation>): boolean {
  return CPE_ATTRIBUTES.every((a) => r[a] === 'superset' || r[a] === 'equal');
}

/** The unquoted text of a WFN string value (`13\.1\-37\.170` → `13.1-37.170`); null for ANY/NA. */
export function plainValue(v: WfnValue): string | null {
  return v.kind === 'value' ? v.quoted.replace(/\\(.)/g, '$1') : null;
}
