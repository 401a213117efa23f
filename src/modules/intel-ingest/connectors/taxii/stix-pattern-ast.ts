/**
 * The syntax tree of a STIX 2.1 pattern (STIX 2.1 Part 5, "STIX Patterning"), as produced by
 * `parseStixPattern`. Operator chains of one kind are flattened (`a OR b OR c` is one node with
 * three operands) so that walking a pattern of thousands of `OR`ed values never recurses deeply;
 * parentheses leave no node of their own, the tree shape already says how things group.
 */

/** `[ ... ]` with its comparison expression; `start`/`end` are offsets of `[` and after `]`. */
export interface ObservationNode {
  kind: 'observation';
  comparison: ComparisonExpr;
  start: number;
  end: number;
}

/** Observation expressions combined by `AND`, `OR` or `FOLLOWEDBY` (all left-associative). */
export interface ObservationOpNode {
  kind: 'observation-op';
  op: 'AND' | 'OR' | 'FOLLOWEDBY';
  operands: ObservationExpr[];
}

export type Qualifier =
  | { kind: 'within'; seconds: number }
  | { kind: 'repeats'; times: number }
  /** ISO 8601 UTC timestamps as written in the pattern (`t'…'`). */
  | { kind: 'start-stop'; start: string; stop: string };

/** An observation expression followed by one qualifier (chained qualifiers nest). */
export interface QualifiedNode {
  kind: 'qualified';
  expr: ObservationExpr;
  qualifier: Qualifier;
}

export type ObservationExpr = ObservationNode | ObservationOpNode | QualifiedNode;

/** The whole pattern: one observation expression tree. */
export type PatternAst = ObservationExpr;

/** Comparison expressions joined by `AND` / `OR` inside one `[ ... ]`. */
export interface ComparisonOpNode {
  kind: 'comparison-op';
  op: 'AND' | 'OR';
  operands: ComparisonExpr[];
}

export type ComparisonOperator =
  | '='
  | '!='
  | '>'
  | '<'
  | '>='
  | '<='
  | 'IN'
  | 'LIKE'
  | 'MATCHES'
  | 'ISSUBSET'
  | 'ISSUPERSET'
  | 'EXISTS';

/**
 * One property test: `path [NOT] op value`, or `EXISTS path` (value null). `==` is stored as `=`
 * and `<>` as `!=` (the grammar accepts both spellings). `position` is the offset of the path.
 */
export interface ComparisonNode {
  kind: 'comparison';
  path: ObjectPath;
  operator: ComparisonOperator;
  negated: boolean;
  value: Literal | SetLiteral | null;
  position: number;
}

export type ComparisonExpr = ComparisonOpNode | ComparisonNode;

export type PathStep = { kind: 'key'; name: string } | { kind: 'index'; index: number | '*' };

/** `file:hashes.'SHA-256'` → `{ objectType: 'file', steps: [key hashes, key SHA-256] }`. */
export interface ObjectPath {
  objectType: string;
  steps: PathStep[];
}

export type Literal =
  | { kind: 'string'; value: string }
  /** `raw` keeps the digits as written: integers beyond 2^53 lose precision in `value`. */
  | { kind: 'int'; value: number; raw: string }
  | { kind: 'float'; value: number; raw: string }
  | { kind: 'bool'; value: boolean }
  /** The text between the quotes of `t'…'`. */
  | { kind: 'timestamp'; value: string }
  /** The hex digits of `h'…'`. */
  | { kind: 'hex'; value: string }
  /** The base64 text of `b'…'`. */
  | { kind: 'binary'; value: string };

/** `( 'a', 'b' )`, the right-hand side of `IN`. */
export interface SetLiteral {
  kind: 'set';
  values: Literal[];
}

/**
 * A malformed pattern. `position` is the 0-based offset in the pattern where the problem was
 * found; the message already says where, so it can be shown to a person as is.
 */
export class StixPatternError extends Error {
  readonly position: number;

  constructor(message: string, position: number) {
    super(`${message} (at position ${position})`);
    this.name = 'StixPatternError';
    this.position = position;
  }
}

/** `file:hashes.'SHA-256'` ← `{ objectType: 'file', steps: [hashes, SHA-256] }` (keys quoted only when needed). */
export function formatObjectPath(path: ObjectPath): string {
  let out = `${path.objectType}:`;
  path.steps.forEach((step, i) => {
    if (step.kind === 'index') {
      out += `[${step.index}]`;
      return;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*$/.test(step.name) ? step.name : `'${step.name.replace(/[\\']/g, '\\$&')}'`;
    out += i === 0 ? name : `.${name}`;
  });
  return out;
}
