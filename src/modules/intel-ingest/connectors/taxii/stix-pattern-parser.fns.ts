import {
  StixPatternError,
  formatObjectPath,
  type ComparisonExpr,
  type ComparisonNode,
  type ComparisonOperator,
  type Literal,
  type ObjectPath,
  type ObservationExpr,
  type PathStep,
  type PatternAst,
  type Qualifier,
  type SetLiteral,
} from './stix-pattern-ast.js';
import { KNOWN_OPERATORS, isStixTimestamp, tokenize, type Token } from './stix-pattern-lexer.fns.js';

/**
 * Recursive-descent parser for the STIX 2.1 patterning grammar (STIXPattern.g4, cti-pattern-validator):
 *
 *   pattern         := obsFollowedBy EOF
 *   obsFollowedBy   := obsOr ('FOLLOWEDBY' obsOr)*
 *   obsOr           := obsAnd ('OR' obsAnd)*
 *   obsAnd          := obsQualified ('AND' obsQualified)*
 *   obsQualified    := obsPrimary (WITHIN n SECONDS | REPEATS n TIMES | START t'…' STOP t'…')*
 *   obsPrimary      := '[' compOr ']' | '(' obsFollowedBy ')'
 *   compOr          := compAnd ('OR' compAnd)*
 *   compAnd         := propTest ('AND' propTest)*
 *   propTest        := '(' compOr ')' | 'EXISTS' path | path 'NOT'? operator value
 *
 * Deliberate tolerances, because producers in the wild follow STIX 2.0 habits: keywords and
 * `true`/`false` in any case (2.0's grammar was case-insensitive), and START/STOP with a plain
 * '…' timestamp string (2.0's form) as well as 2.1's t'…'.
 */

// Deep enough for any real pattern; stops a hostile one from overflowing the stack.
const MAX_DEPTH = 100;

const WORD_OPERATORS = new Map<string, ComparisonOperator>([
  ['IN', 'IN'],
  ['LIKE', 'LIKE'],
  ['MATCHES', 'MATCHES'],
  ['ISSUBSET', 'ISSUBSET'],
  ['ISSUPERSET', 'ISSUPERSET'],
]);

const ORDERING = new Set<ComparisonOperator>(['>', '<', '>=', '<=']);

export function parseStixPattern(pattern: string): PatternAst {
  return new Parser(tokenize(pattern)).parsePattern();
}

function describeToken(t: Token): string {
  switch (t.kind) {
    case 'eof':
      return 'the end of the pattern';
    case 'string':
      return `the string '${t.value.length > 30 ? `${t.value.slice(0, 29)}…` : t.value}'`;
    case 'timestamp':
      return `t'${t.value}'`;
    case 'hex':
    case 'binary':
      return `a ${t.kind} literal`;
    case 'int':
    case 'float':
      return `the number ${t.value}`;
    default:
      return `"${t.value.length > 30 ? `${t.value.slice(0, 29)}…` : t.value}"`;
  }
}

class Parser {
  private i = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parsePattern(): PatternAst {
    if (this.peek().kind === 'eof') throw new StixPatternError('The pattern is empty', 0);
    const ast = this.obsFollowedBy();
    const rest = this.peek();
    if (rest.kind !== 'eof') {
      throw new StixPatternError(`Unexpected ${describeToken(rest)} after the end of the pattern`, rest.pos);
    }
    return ast;
  }

  // ---- token helpers -------------------------------------------------------------------------

  private peek(offset = 0): Token {
    // The token list always ends with 'eof', so clamping keeps peek total.
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i += 1;
    return t;
  }

  private isKeyword(t: Token, keyword: string): boolean {
    return t.kind === 'word' && t.value.toUpperCase() === keyword;
  }

  private acceptKeyword(keyword: string): boolean {
    if (!this.isKeyword(this.peek(), keyword)) return false;
    this.i += 1;
    return true;
  }

  private expectKeyword(keyword: string, after: string): void {
    const t = this.peek();
    if (!this.acceptKeyword(keyword)) {
      throw new StixPatternError(`Expected ${keyword} after ${after}, found ${describeToken(t)}`, t.pos);
    }
  }

  private enter(pos: number): void {
    this.depth += 1;
    if (this.depth > MAX_DEPTH) throw new StixPatternError(`The pattern nests more than ${MAX_DEPTH} levels deep`, pos);
  }

  private close(kind: ']' | ')', opener: Token, what: string): void {
    const t = this.peek();
    if (t.kind !== kind) {
      throw new StixPatternError(
        `Missing '${kind}' to close the ${what} opened at position ${opener.pos}; found ${describeToken(t)}`,
        t.pos,
      );
    }
    this.i += 1;
    this.depth -= 1;
  }

  /** `operand (KEYWORD operand)*`, flattened into one node when the keyword occurs. */
  private chain<T, N>(keyword: string, operand: () => T, build: (operands: T[]) => N): T | N {
    const first = operand();
    if (!this.isKeyword(this.peek(), keyword)) return first;
    const operands = [first];
    while (this.acceptKeyword(keyword)) operands.push(operand());
    return build(operands);
  }

  // ---- observation expressions ---------------------------------------------------------------

  private obsFollowedBy(): ObservationExpr {
    return this.chain('FOLLOWEDBY', () => this.obsOr(), (operands) => ({ kind: 'observation-op', op: 'FOLLOWEDBY', operands }));
  }

  private obsOr(): ObservationExpr {
    return this.chain('OR', () => this.obsAnd(), (operands) => ({ kind: 'observation-op', op: 'OR', operands }));
  }

  private obsAnd(): ObservationExpr {
    return this.chain('AND', () => this.obsQualified(), (operands) => ({ kind: 'observation-op', op: 'AND', operands }));
  }

  private obsQualified(): ObservationExpr {
    let expr = this.obsPrimary();
    for (;;) {
      const qualifier = this.qualifier();
      if (!qualifier) return expr;
      expr = { kind: 'qualified', expr, qualifier };
    }
  }

  private obsPrimary(): ObservationExpr {
    const t = this.peek();
    if (t.kind === '[') {
      this.next();
      this.enter(t.pos);
      const comparison = this.compOr();
      this.close(']', t, 'observation expression');
      return { kind: 'observation', comparison, start: t.pos, end: this.tokens[this.i - 1]!.end };
    }
    if (t.kind === '(') {
      this.next();
      this.enter(t.pos);
      const expr = this.obsFollowedBy();
      this.close(')', t, 'parenthesis');
      return expr;
    }
    throw new StixPatternError(`Expected '[' or '(' to start an observation expression, found ${describeToken(t)}`, t.pos);
  }

  private qualifier(): Qualifier | null {
    const t = this.peek();
    if (this.acceptKeyword('WITHIN')) {
      const n = this.next();
      if ((n.kind !== 'int' && n.kind !== 'float') || n.value.startsWith('-')) {
        throw new StixPatternError(`WITHIN needs a positive number of seconds, found ${describeToken(n)}`, n.pos);
      }
      this.expectKeyword('SECONDS', `WITHIN ${n.value}`);
      return { kind: 'within', seconds: Number(n.value) };
    }
    if (this.acceptKeyword('REPEATS')) {
      const n = this.next();
      if (n.kind !== 'int' || n.value.startsWith('-')) {
        throw new StixPatternError(`REPEATS needs a positive whole number, found ${describeToken(n)}`, n.pos);
      }
      this.expectKeyword('TIMES', `REPEATS ${n.value}`);
      return { kind: 'repeats', times: Number(n.value) };
    }
    if (this.acceptKeyword('START')) {
      const start = this.qualifierTimestamp('START');
      this.expectKeyword('STOP', `START t'${start}'`);
      const stop = this.qualifierTimestamp('STOP');
      return { kind: 'start-stop', start, stop };
    }
    if (this.isKeyword(t, 'STOP')) throw new StixPatternError('STOP without a preceding START', t.pos);
    return null;
  }

  private qualifierTimestamp(keyword: string): string {
    const t = this.next();
    if (t.kind === 'timestamp' || (t.kind === 'string' && isStixTimestamp(t.value))) return t.value;
    throw new StixPatternError(`${keyword} needs a timestamp like t'2020-01-01T00:00:00Z', found ${describeToken(t)}`, t.pos);
  }

  // ---- comparison expressions ----------------------------------------------------------------

  private compOr(): ComparisonExpr {
    return this.chain('OR', () => this.compAnd(), (operands) => ({ kind: 'comparison-op', op: 'OR', operands }));
  }

  private compAnd(): ComparisonExpr {
    return this.chain('AND', () => this.propTest(), (operands) => ({ kind: 'comparison-op', op: 'AND', operands }));
  }

  private propTest(): ComparisonExpr {
    const t = this.peek();
    if (t.kind === '(') {
      this.next();
      this.enter(t.pos);
      const expr = this.compOr();
      this.close(')', t, 'parenthesis');
      return expr;
    }
    // `EXISTS` is a keyword only where an object path cannot be (a path's type is followed by ':').
    if (this.isKeyword(t, 'EXISTS') && this.peek(1).kind !== ':') {
      this.next();
      const path = this.objectPath();
      return { kind: 'comparison', path, operator: 'EXISTS', negated: false, value: null, position: t.pos };
    }
    if (this.isKeyword(t, 'NOT') && this.peek(1).kind !== ':') {
      throw new StixPatternError("NOT goes between the object path and the operator, e.g. file:name NOT = 'x'", t.pos);
    }
    const path = this.objectPath();
    const negated = this.acceptKeyword('NOT');
    const operator = this.operator(path);
    return { kind: 'comparison', path, operator, negated, value: this.operand(operator), position: t.pos };
  }

  private operator(path: ObjectPath): ComparisonOperator {
    const t = this.next();
    const where = (): string => formatObjectPath(path);
    if (t.kind === 'op') {
      if (!KNOWN_OPERATORS.has(t.value)) throw new StixPatternError(`Unknown operator "${t.value}" after ${where()}`, t.pos);
      return t.value === '==' ? '=' : t.value === '<>' ? '!=' : (t.value as ComparisonOperator);
    }
    if (t.kind === 'word') {
      const op = WORD_OPERATORS.get(t.value.toUpperCase());
      if (op) return op;
      if (this.isKeyword(t, 'EXISTS')) {
        throw new StixPatternError(`EXISTS goes before the object path: EXISTS ${where()}`, t.pos);
      }
      throw new StixPatternError(`Unknown operator "${t.value}" after ${where()}`, t.pos);
    }
    throw new StixPatternError(`Expected a comparison operator after ${where()}, found ${describeToken(t)}`, t.pos);
  }

  private operand(operator: ComparisonOperator): Literal | SetLiteral {
    if (operator === 'IN') return this.setLiteral();
    const t = this.peek();
    const literal = this.literal(`after ${operator}`);
    if (ORDERING.has(operator) && literal.kind === 'bool') {
      throw new StixPatternError(`${operator} cannot compare with a boolean`, t.pos);
    }
    if ((operator === 'LIKE' || operator === 'MATCHES' || operator === 'ISSUBSET' || operator === 'ISSUPERSET') && literal.kind !== 'string') {
      throw new StixPatternError(`${operator} needs a quoted string, found ${describeToken(t)}`, t.pos);
    }
    return literal;
  }

  private setLiteral(): SetLiteral {
    const open = this.peek();
    if (open.kind !== '(') {
      throw new StixPatternError(`IN needs a parenthesised list like ('a', 'b'), found ${describeToken(open)}`, open.pos);
    }
    this.next();
    const values: Literal[] = [];
    if (this.peek().kind !== ')') {
      values.push(this.literal('in the IN list'));
      while (this.peek().kind === ',') {
        this.next();
        values.push(this.literal('after "," in the IN list'));
      }
    }
    const t = this.peek();
    if (t.kind !== ')') {
      throw new StixPatternError(`Missing ')' to close the IN list opened at position ${open.pos}; found ${describeToken(t)}`, t.pos);
    }
    this.next();
    return { kind: 'set', values };
  }

  private literal(where: string): Literal {
    const t = this.next();
    switch (t.kind) {
      case 'string':
        return { kind: 'string', value: t.value };
      case 'int':
        return { kind: 'int', value: Number(t.value), raw: t.value };
      case 'float':
        return { kind: 'float', value: Number(t.value), raw: t.value };
      case 'timestamp':
      case 'hex':
      case 'binary':
        return { kind: t.kind, value: t.value };
      case 'word': {
        const upper = t.value.toUpperCase();
        if (upper === 'TRUE' || upper === 'FALSE') return { kind: 'bool', value: upper === 'TRUE' };
        break;
      }
      default:
        break;
    }
    throw new StixPatternError(`Expected a value ${where}, found ${describeToken(t)}`, t.pos);
  }

  // ---- object paths --------------------------------------------------------------------------

  private objectPath(): ObjectPath {
    const typeTok = this.next();
    if (typeTok.kind !== 'word') {
      throw new StixPatternError(`Expected an object path like file:name, found ${describeToken(typeTok)}`, typeTok.pos);
    }
    const colon = this.next();
    if (colon.kind !== ':') {
      throw new StixPatternError(`Expected ':' after the object type "${typeTok.value}", found ${describeToken(colon)}`, colon.pos);
    }
    const steps: PathStep[] = [{ kind: 'key', name: this.propertyName(typeTok.value) }];
    for (;;) {
      const t = this.peek();
      if (t.kind === '.') {
        this.next();
        steps.push({ kind: 'key', name: this.propertyName(typeTok.value) });
      } else if (t.kind === '[') {
        this.next();
        const idx = this.next();
        let index: number | '*';
        if (idx.kind === '*') index = '*';
        else if (idx.kind === 'int') index = Number(idx.value);
        else throw new StixPatternError(`Expected a list index or '*' inside '[ ]', found ${describeToken(idx)}`, idx.pos);
        const end = this.next();
        if (end.kind !== ']') throw new StixPatternError(`Missing ']' after the list index, found ${describeToken(end)}`, end.pos);
        steps.push({ kind: 'index', index });
      } else {
        return { objectType: typeTok.value, steps };
      }
    }
  }

  /** A property name: an identifier without '-' or a quoted string (`hashes.'SHA-256'`). */
  private propertyName(objectType: string): string {
    const t = this.next();
    if (t.kind === 'string') return t.value;
    if (t.kind === 'word') {
      if (t.value.includes('-')) {
        throw new StixPatternError(`Property name "${t.value}" contains '-': quote it as '${t.value}'`, t.pos);
      }
      return t.value;
    }
    throw new StixPatternError(`Expected a property name in the path of "${objectType}", found ${describeToken(t)}`, t.pos);
  }
}
