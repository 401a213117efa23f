/**
 * The Sigma condition grammar: identifiers (selection names), `and`, `or`, `not`, parentheses,
 * and the quantifiers `1 of x*`, `all of x*`, `1 of them`, `all of them` (any count `N of` is read
 * as "at least N"). Precedence, lowest first: or, and, not. Keywords are case-insensitive. The
 * Sigma 1 aggregation pipe (`| count() > 5`) is refused: Sigma 2 says it with correlation rules.
 */

export type Condition =
  | { kind: 'ref'; name: string }
  | { kind: 'and'; items: Condition[] }
  | { kind: 'or'; items: Condition[] }
  | { kind: 'not'; item: Condition }
  | { kind: 'of'; count: number | 'all'; pattern: string };

export class ConditionError extends Error {
  constructor(
    readonly construct: string,
    message: string,
  ) {
    super(message);
  }
}

const TOKEN = /\s*(\(|\)|[^\s()]+)/y;

function tokenize(text: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while (TOKEN.lastIndex < text.length && (m = TOKEN.exec(text))) out.push(m[1]!);
  return out;
}

export function parseCondition(text: string): Condition {
  if (text.includes('|')) throw new ConditionError('condition aggregation (|)', 'the Sigma 1 aggregation pipe is not part of Sigma 2: write a correlation rule');
  const tokens = tokenize(text);
  let pos = 0;
  const peek = () => tokens[pos]?.toLowerCase();
  const fail = (msg: string): never => {
    throw new ConditionError('condition', `${msg} in condition "${text}"`);
  };

  function or(): Condition {
    const items = [and()];
    while (peek() === 'or') {
      pos++;
      items.push(and());
    }
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  }
  function and(): Condition {
    const items = [not()];
    while (peek() === 'and') {
      pos++;
      items.push(not());
    }
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  }
  function not(): Condition {
    if (peek() === 'not') {
      pos++;
      return { kind: 'not', item: not() };
    }
    return atom();
  }
  function atom(): Condition {
    const t = tokens[pos];
    if (t === undefined) return fail('unexpected end');
    const lower = t.toLowerCase();
    if (t === '(') {
      pos++;
      const inner = or();
      if (tokens[pos] !== ')') fail('missing )');
      pos++;
      return inner;
    }
    if (t === ')' || lower === 'and' || lower === 'or' || lower === 'of') return fail(`unexpected "${t}"`);
    // `any of` is pySigma's spelling of `1 of` (the SigmaHQ rules and pySigma's tests use both).
    if ((lower === 'all' || lower === 'any' || /^\d+$/.test(lower)) && tokens[pos + 1]?.toLowerCase() === 'of') {
      const target = tokens[pos + 2];
      if (target === undefined || target === '(' || target === ')') fail(`"${t} of" needs a selection name or pattern`);
      pos += 3;
      const count = lower === 'all' ? 'all' : lower === 'any' ? 1 : Number(lower);
      if (count === 0) fail('"0 of" never matches');
      return { kind: 'of', count, pattern: target! };
    }
    if (!/^[\w*.-]+$/.test(t)) fail(`unexpected "${t}"`);
    pos++;
    return { kind: 'ref', name: t };
  }

  if (tokens.length === 0) fail('empty');
  const result = or();
  if (pos < tokens.length) fail(`unexpected "${tokens[pos]}"`);
  return result;
}

/** The selection names a quantifier's pattern covers: `them` is every name not starting with `_`. */
export function namesOf(pattern: string, names: readonly string[]): string[] {
  if (pattern.toLowerCase() === 'them') return names.filter((n) => !n.startsWith('_'));
  if (!pattern.includes('*')) return names.filter((n) => n === pattern);
  const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return names.filter((n) => re.test(n));
}
