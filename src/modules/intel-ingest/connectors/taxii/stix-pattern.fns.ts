import { isIPv4, isIPv6 } from 'node:net';
import type { AssertedIndicatorType, StructuredIndicator } from '../../../intel/index.js';
import type { ComparisonExpr, ComparisonNode, Literal, ObjectPath, ObservationExpr, PatternAst } from './stix-pattern-ast.js';
import { parseStixPattern } from './stix-pattern-parser.fns.js';

/**
 * STIX 2.1 patterns: parsing (stix-pattern-lexer.fns.ts / stix-pattern-parser.fns.ts, AST in
 * stix-pattern-ast.ts) and extraction of the indicators a pattern asserts. Pure, no I/O.
 */

export { parseStixPattern } from './stix-pattern-parser.fns.js';
export { StixPatternError, formatObjectPath } from './stix-pattern-ast.js';
export type {
  ComparisonExpr,
  ComparisonNode,
  ComparisonOpNode,
  ComparisonOperator,
  Literal,
  ObjectPath,
  ObservationExpr,
  ObservationNode,
  ObservationOpNode,
  PathStep,
  PatternAst,
  QualifiedNode,
  Qualifier,
  SetLiteral,
} from './stix-pattern-ast.js';

export const STIX_PATTERN_ORIGIN = 'stix:pattern';

/**
 * The indicators `pattern` asserts: every `=` comparison, and every member of an `IN` set, on an
 * object path we know how to type (see {@link classifyPath}). Negated tests (`NOT`, `!=`) and the
 * other operators (`LIKE`, `MATCHES`, `>`, …) describe what to match, not a value to block, so
 * they yield nothing. Values that cannot be what their path says (a domain with a space in it, an
 * MD5 that is not 32 hex digits) are dropped rather than passed on as indicators.
 * Deduplicated by (type, value), first occurrence wins.
 *
 * @throws StixPatternError when the pattern is malformed.
 */
export function indicatorsFromPattern(pattern: string, confidence: number): StructuredIndicator[] {
  return indicatorsFromAst(parseStixPattern(pattern), pattern, confidence);
}

/** {@link indicatorsFromPattern} for an already parsed pattern; `pattern` becomes the `context`. */
export function indicatorsFromAst(ast: PatternAst, pattern: string, confidence: number): StructuredIndicator[] {
  const out: StructuredIndicator[] = [];
  const seen = new Set<string>();
  const conf = Number.isFinite(confidence) ? Math.min(1, Math.max(0, confidence)) : 0;
  forEachObservation(ast, (comparison) => {
    walkComparison(comparison, [], (test, siblings) => {
      for (const { type, value } of typedValues(test, siblings)) {
        const key = `${type}\u0000${value}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ type, value, confidence: conf, origin: STIX_PATTERN_ORIGIN, context: pattern });
      }
    });
  });
  return out;
}

/** Calls `visit` with the comparison expression of every `[ … ]`, left to right. */
export function forEachObservation(expr: ObservationExpr, visit: (comparison: ComparisonExpr) => void): void {
  switch (expr.kind) {
    case 'observation':
      visit(expr.comparison);
      return;
    case 'qualified':
      forEachObservation(expr.expr, visit);
      return;
    case 'observation-op':
      for (const operand of expr.operands) forEachObservation(operand, visit);
  }
}

/**
 * Visits every property test with the tests that must hold together with it: those joined to it
 * by `AND` (at any level above it, but not across an `OR`). That is what lets
 * `network-traffic:dst_ref.type = 'ipv4-addr' AND network-traffic:dst_ref.value = '…'` type the value.
 */
function walkComparison(
  expr: ComparisonExpr,
  inherited: readonly ComparisonNode[],
  visit: (test: ComparisonNode, siblings: readonly ComparisonNode[]) => void,
): void {
  if (expr.kind === 'comparison') {
    visit(expr, inherited);
    return;
  }
  const context = expr.op === 'AND' ? [...inherited, ...andLeaves(expr)] : inherited;
  for (const operand of expr.operands) walkComparison(operand, context, visit);
}

function andLeaves(expr: ComparisonExpr): ComparisonNode[] {
  if (expr.kind === 'comparison') return [expr];
  return expr.op === 'AND' ? expr.operands.flatMap(andLeaves) : [];
}

interface TypedValue {
  type: AssertedIndicatorType;
  value: string;
}

function typedValues(test: ComparisonNode, siblings: readonly ComparisonNode[]): TypedValue[] {
  if (test.negated || (test.operator !== '=' && test.operator !== 'IN') || test.value === null) return [];
  const literals: Literal[] = test.value.kind === 'set' ? test.value.values : [test.value];
  const out: TypedValue[] = [];
  for (const literal of literals) {
    const text = literalText(literal);
    if (text === null) continue;
    const type = classifyPath(test.path, siblings, text);
    if (type === null) continue;
    // Strings may be anything; h'…' only a hash; a bare number only an AS number.
    const fits =
      literal.kind === 'string' ||
      (literal.kind === 'hex' && HASH_LENGTHS[type] !== undefined) ||
      (literal.kind === 'int' && type === 'asn');
    if (!fits) continue;
    const value = cleanValue(type, text);
    if (value !== null) out.push({ type, value });
  }
  return out;
}

function literalText(literal: Literal): string | null {
  switch (literal.kind) {
    case 'string':
    case 'hex':
      return literal.value;
    case 'int':
      return literal.raw.replace(/^\+/, '');
    default:
      return null;
  }
}

// Lookups below are Maps, not object literals: keys come from the pattern, and a plain object
// would answer 'constructor' or '__proto__' from Object.prototype.

/** Object path (type, then property steps) → indicator type, for paths whose value is the indicator. */
const SIMPLE_PATHS = new Map(Object.entries<AssertedIndicatorType>({
  'ipv4-addr:value': 'ipv4',
  'ipv6-addr:value': 'ipv6',
  'domain-name:value': 'domain',
  'url:value': 'url',
  'email-addr:value': 'email',
  'file:name': 'filename',
  'windows-registry-key:key': 'registry-key',
  'process:name': 'process',
  'process:command_line': 'process',
  'mutex:name': 'mutex',
  'x509-certificate:serial_number': 'cert',
  'autonomous-system:number': 'asn',
}));

const HASHES = new Map(Object.entries<AssertedIndicatorType>({
  MD5: 'md5',
  SHA1: 'sha1',
  SHA256: 'sha256',
  SHA512: 'sha512',
  SSDEEP: 'ssdeep',
}));

const HASH_LENGTHS: Partial<Record<AssertedIndicatorType, number>> = { md5: 32, sha1: 40, sha256: 64, sha512: 128 };

/** What an object referenced by `network-traffic:src_ref`/`dst_ref` may be, by its STIX type. */
const REF_TYPES = new Map(Object.entries<AssertedIndicatorType>({
  'ipv4-addr': 'ipv4',
  'ipv6-addr': 'ipv6',
  'domain-name': 'domain',
}));

/**
 * The indicator type of a value compared to `path`, or null when the path is not one we extract.
 * Types and property names are compared case-insensitively (producers vary), hash names also
 * ignoring '-' / '_' so `'SHA-256'`, `SHA256` and `sha_256` agree.
 */
export function classifyPath(path: ObjectPath, siblings: readonly ComparisonNode[], value: string): AssertedIndicatorType | null {
  const keys: string[] = [];
  for (const step of path.steps) {
    if (step.kind !== 'key') return null;
    keys.push(step.name);
  }
  const objectType = path.objectType.toLowerCase();
  const [first, second] = [keys[0]?.toLowerCase(), keys[1]];
  if (keys.length === 1) return SIMPLE_PATHS.get(`${objectType}:${first}`) ?? null;
  if (keys.length !== 2 || second === undefined) return null;
  if (first === 'hashes') {
    if (objectType === 'x509-certificate') return 'cert';
    if (objectType === 'file') return HASHES.get(second.toUpperCase().replace(/[-_\s]/g, '')) ?? null;
    return null;
  }
  if (objectType === 'network-traffic' && (first === 'src_ref' || first === 'dst_ref') && second.toLowerCase() === 'value') {
    return refType(first, siblings, value);
  }
  return null;
}

function refType(ref: string, siblings: readonly ComparisonNode[], value: string): AssertedIndicatorType | null {
  for (const s of siblings) {
    const [a, b] = s.path.steps;
    const isTypeTest =
      s.path.objectType.toLowerCase() === 'network-traffic' &&
      s.path.steps.length === 2 &&
      a?.kind === 'key' &&
      a.name.toLowerCase() === ref &&
      b?.kind === 'key' &&
      b.name.toLowerCase() === 'type';
    if (isTypeTest && s.operator === '=' && !s.negated && s.value?.kind === 'string') {
      return REF_TYPES.get(s.value.value.toLowerCase()) ?? null;
    }
  }
  // No sibling says what the ref is: an address is recognisable by its shape, a name is not.
  const addr = value.trim().split('/')[0] ?? '';
  if (isIPv4(addr)) return 'ipv4';
  if (isIPv6(addr)) return 'ipv6';
  return null;
}

/** The value as stored, or null when it cannot be a `type` (kept as given otherwise; CIDR kept). */
function cleanValue(type: AssertedIndicatorType, raw: string): string | null {
  const v = raw.trim();
  if (v === '') return null;
  const hashLength = HASH_LENGTHS[type];
  if (hashLength !== undefined) return v.length === hashLength && /^[0-9a-f]+$/i.test(v) ? v : null;
  switch (type) {
    case 'ipv4':
      return cidr(v, isIPv4, 32) ? v : null;
    case 'ipv6':
      return cidr(v, isIPv6, 128) ? v : null;
    case 'domain':
      return /^[^\s/@:]+$/.test(v) && !v.startsWith('.') ? v : null;
    case 'email':
      return /^[^\s@]+@[^\s@]+$/.test(v) ? v : null;
    case 'ssdeep':
      return /^\d+:\S+:\S+$/.test(v) ? v : null;
    case 'asn': {
      const m = /^(?:AS)?(\d+)$/i.exec(v);
      return m ? m[1]! : null;
    }
    case 'cert':
      return /\s/.test(v) ? null : v;
    default:
      return v;
  }
}

function cidr(v: string, isAddress: (s: string) => boolean, maxPrefix: number): boolean {
  const slash = v.indexOf('/');
  if (slash < 0) return isAddress(v);
  const prefix = v.slice(slash + 1);
  return isAddress(v.slice(0, slash)) && /^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix;
}
