import { BlockList, isIP } from 'node:net';
import type { EventView } from './sigma-event.fns.js';
import {
  base64Of,
  base64OffsetOf,
  compilePattern,
  encodeUtf16,
  expandPlaceholders,
  literalPattern,
  parsePattern,
  requiredLiteral,
  windashVariants,
  withLeadingStar,
  withTrailingStar,
  type Pattern,
} from './sigma-patterns.fns.js';

/**
 * One `field|modifier|…: value(s)` entry of a selection (or a keyword list, field null), compiled
 * to a test on an event and the literals any matching event must contain (the rule's pre-filter;
 * null when the entry cannot promise one, e.g. `null`, `exists`, comparisons, fieldref).
 */
export interface CompiledEntry {
  test: (view: EventView) => boolean;
  needles: string[] | null;
}

/** A construct the engine refuses, with the YAML path it came from (the caller finds the line). */
export class RuleConstructError extends Error {
  constructor(
    readonly construct: string,
    message: string,
    readonly path: Array<string | number>,
  ) {
    super(message);
  }
}

export const MODIFIERS = new Set([
  'contains', 'startswith', 'endswith', 'all', 're', 'i', 'm', 's', 'base64', 'base64offset', 'utf16le', 'utf16be', 'utf16', 'wide',
  'windash', 'cidr', 'lt', 'lte', 'gt', 'gte', 'exists', 'fieldref', 'cased', 'expand',
]);

export interface CompileOptions {
  /** Values of `%name%` placeholders for `|expand`. An unknown placeholder refuses the rule. */
  placeholders?: Record<string, string[]>;
}

type Scalar = string | number | boolean | null;

const MIN_NEEDLE = 3;

/** Python's leading inline flags, which JavaScript does not read: `(?i)`, `(?is)`… */
function regexOf(source: string, flags: string): RegExp {
  let src = source;
  let f = flags;
  const inline = /^\(\?([imsx]+)\)/.exec(src);
  if (inline) {
    if (inline[1]!.includes('x')) throw new Error('verbose regular expressions (?x) are not supported');
    for (const c of inline[1]!) if (!f.includes(c)) f += c;
    src = src.slice(inline[0].length);
  }
  return new RegExp(src, f);
}

export function compileEntry(key: string | null, raw: unknown, path: Array<string | number>, options: CompileOptions): CompiledEntry {
  const parts = key === null ? [''] : key.split('|');
  const field = parts[0] ? parts[0] : null;
  const mods = parts.slice(1);
  const fail = (construct: string, message: string): never => {
    throw new RuleConstructError(construct, message, path);
  };
  for (const m of mods) if (!MODIFIERS.has(m)) fail(`modifier |${m}`, `unknown value modifier "${m}"`);
  const has = (m: string) => mods.includes(m);
  const values: Scalar[] = (Array.isArray(raw) ? raw : [raw]) as Scalar[];
  for (const v of values) if (v !== null && typeof v === 'object') fail('nested value', 'a value must be a string, number, boolean or null');
  if (values.length === 0) fail('empty value list', 'a field needs at least one value');
  const matchAll = has('all');
  if ((has('i') || has('m') || has('s')) && !has('re')) fail(`modifier |${mods.find((m) => 'ims'.includes(m))}`, 'the i, m and s flags apply only to |re');

  // Modifiers that are not string transformations take the whole entry.
  if (has('exists')) {
    if (field === null) fail('modifier |exists', '|exists needs a field');
    // YAML 1.1's yes/no, which SigmaHQ rules and pySigma accept, are strings to a YAML 1.2 parser.
    const flag = values.length === 1 ? ({ true: true, false: false, yes: true, no: false } as Record<string, boolean>)[String(values[0]).toLowerCase()] : undefined;
    if (flag === undefined) fail('modifier |exists', '|exists takes true or false');
    const want = flag as boolean;
    return { test: (view) => (view.values(field!) !== null) === want, needles: null };
  }
  if (field === null && (has('fieldref') || has('cidr') || ['lt', 'lte', 'gt', 'gte'].some(has))) fail(`modifier |${mods[0]}`, 'this modifier needs a field');
  const f = field as string;
  const combine = (tests: Array<(view: EventView) => boolean>) =>
    matchAll ? (view: EventView) => tests.every((t) => t(view)) : (view: EventView) => tests.some((t) => t(view));

  if (has('fieldref')) {
    const others = values.map((v) => (typeof v === 'string' ? v : fail('modifier |fieldref', '|fieldref takes field names')));
    const cased = has('cased');
    const how = has('contains') ? 'contains' : has('startswith') ? 'startswith' : has('endswith') ? 'endswith' : 'equals';
    const tests = others.map((other) => (view: EventView) => {
      const mine = view.strings(f, !cased);
      const theirs = view.strings(other as string, !cased);
      return mine.some((a) =>
        theirs.some((b) => (how === 'equals' ? a === b : how === 'contains' ? a.includes(b) : how === 'startswith' ? a.startsWith(b) : a.endsWith(b))),
      );
    });
    return { test: combine(tests), needles: null };
  }
  const cmp = ['lt', 'lte', 'gt', 'gte'].find(has);
  if (cmp) {
    const tests = values.map((v) => {
      const n = typeof v === 'number' ? v : fail(`modifier |${cmp}`, `|${cmp} takes a number`);
      const ok = cmp === 'lt' ? (x: number) => x < n : cmp === 'lte' ? (x: number) => x <= n : cmp === 'gt' ? (x: number) => x > n : (x: number) => x >= n;
      return (view: EventView) =>
        (view.values(f) ?? []).some((x) => {
          const num = typeof x === 'number' ? x : typeof x === 'string' && x.trim() !== '' ? Number(x) : NaN;
          return Number.isFinite(num) && ok(num);
        });
    });
    return { test: combine(tests), needles: null };
  }
  if (has('cidr')) {
    const list = new BlockList();
    for (const v of values) {
      const [net, bits] = typeof v === 'string' ? v.split('/') : [];
      const family = net ? isIP(net) : 0;
      const prefix = Number(bits ?? (family === 6 ? 128 : 32));
      if (!family || !Number.isInteger(prefix)) fail('modifier |cidr', `"${String(v)}" is not a network in CIDR notation`);
      list.addSubnet(net!, prefix, family === 6 ? 'ipv6' : 'ipv4');
    }
    return {
      test: (view) =>
        view.strings(f, false).some((s) => {
          const fam = isIP(s);
          return fam !== 0 && list.check(s, fam === 6 ? 'ipv6' : 'ipv4');
        }),
      needles: null,
    };
  }
  if (has('re')) {
    const flags = `${has('i') ? 'i' : ''}${has('m') ? 'm' : ''}${has('s') ? 's' : ''}`;
    const tests = values.map((v) => {
      if (typeof v !== 'string') return fail('modifier |re', '|re takes a regular expression');
      let re: RegExp;
      try {
        re = regexOf(v, flags);
      } catch (err) {
        return fail('modifier |re', `not a regular expression JavaScript can run: ${(err as Error).message}`);
      }
      // `re` searches anywhere in the value unless the expression anchors itself.
      return field === null ? (view: EventView) => view.allStrings(false).some((s) => re.test(s)) : (view: EventView) => view.strings(f, false).some((s) => re.test(s));
    });
    return { test: combine(tests), needles: null };
  }

  // String values: build the patterns, modifier by modifier in the order written.
  const cased = has('cased');
  let nullOk = false;
  const groups: Pattern[][] = []; // one group per value; a value may expand into variants
  for (const v of values) {
    if (v === null) {
      if (field === null) fail('null keyword', 'a keyword cannot be null');
      nullOk = true;
      continue;
    }
    let patterns = valuePatterns(v, mods, options, fail);
    if (field === null) patterns = patterns.map((p) => withTrailingStar(withLeadingStar(p))); // keywords search the whole value
    groups.push(patterns);
  }

  const groupTests = groups.map((patterns) => {
    const tests = patterns.map((p) => compilePattern(p, cased));
    const one = tests.length === 1 ? tests[0]! : (s: string) => tests.some((t) => t(s));
    return field === null ? (view: EventView) => view.allStrings(!cased).some(one) : (view: EventView) => view.strings(f, !cased).some(one);
  });
  const absent = (view: EventView) => {
    const vals = view.values(f);
    return vals === null || vals.every((v) => v === null);
  };
  let test: (view: EventView) => boolean;
  if (groupTests.length === 0) test = absent;
  else if (matchAll) test = nullOk ? (view) => absent(view) && groupTests.every((t) => t(view)) : (view) => groupTests.every((t) => t(view));
  else if (groupTests.length === 1 && !nullOk) test = groupTests[0]!;
  else test = nullOk ? (view) => absent(view) || groupTests.some((t) => t(view)) : (view) => groupTests.some((t) => t(view));

  // Pre-filter: with |all every value must be present, so the longest one will do; otherwise
  // every alternative must bring its own literal, or the entry promises nothing.
  let needles: string[] | null = null;
  const lits = groups.map((ps) => (ps.some((p) => p.bytes) ? [''] : ps.map(requiredLiteral)));
  if (!nullOk && lits.length > 0) {
    const usable = lits.filter((l) => l.every((x) => x.length >= MIN_NEEDLE));
    if (matchAll) needles = usable.sort((a, b) => a.length - b.length)[0] ?? null;
    else if (usable.length === lits.length) needles = lits.flat();
  }
  return { test, needles };
}

/** A string or number value through the string modifiers, in the order written. */
export function valuePatterns(v: string | number | boolean, mods: string[], options: CompileOptions, fail: (construct: string, message: string) => never): Pattern[] {
  let patterns: Pattern[] = [typeof v === 'string' ? parsePattern(v) : literalPattern(String(v))];
  for (const m of mods) {
    const next: Pattern[] = [];
    for (const p of patterns) {
      switch (m) {
        case 'contains':
          next.push(withTrailingStar(withLeadingStar(p)));
          break;
        case 'startswith':
          next.push(withTrailingStar(p));
          break;
        case 'endswith':
          next.push(withLeadingStar(p));
          break;
        case 'windash':
          next.push(...windashVariants(p));
          break;
        case 'utf16le':
        case 'wide':
          next.push(encodeUtf16(p, 'utf16le'));
          break;
        case 'utf16be':
          next.push(encodeUtf16(p, 'utf16be'));
          break;
        case 'utf16':
          next.push(encodeUtf16(p, 'utf16'));
          break;
        case 'base64': {
          const b = base64Of(p);
          if (!b) fail('modifier |base64', '|base64 cannot encode a value with wildcards');
          next.push(b!);
          break;
        }
        case 'base64offset': {
          const b = base64OffsetOf(p);
          if (!b) fail('modifier |base64offset', '|base64offset cannot encode a value with wildcards');
          next.push(...b!);
          break;
        }
        case 'expand': {
          const r = expandPlaceholders(p, (name) => options.placeholders?.[name]);
          if ('missing' in r) fail(`placeholder %${r.missing}%`, `|expand: no value given for the placeholder %${r.missing}%`);
          else next.push(...r.patterns);
          break;
        }
        default:
          next.push(p); // all, cased: not transformations
      }
    }
    patterns = next;
  }
  return patterns;
}
