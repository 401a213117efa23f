import { describe, expect, it } from 'vitest';
import {
  StixPatternError,
  formatObjectPath,
  parseStixPattern,
  type ComparisonExpr,
  type ComparisonNode,
  type ObservationExpr,
  type ObservationNode,
} from './stix-pattern.fns.js';

/** The comparison of a pattern that is a single `[ … ]`. */
function comparisonOf(pattern: string): ComparisonExpr {
  const ast = parseStixPattern(pattern);
  expect(ast.kind).toBe('observation');
  return (ast as ObservationNode).comparison;
}

function testOf(pattern: string): ComparisonNode {
  const c = comparisonOf(pattern);
  expect(c.kind).toBe('comparison');
  return c as ComparisonNode;
}

/** A compact rendering of the tree, to assert grouping without spelling out every node. */
function shape(e: ObservationExpr | ComparisonExpr): string {
  switch (e.kind) {
    case 'observation':
      return `[${shape(e.comparison)}]`;
    case 'observation-op':
    case 'comparison-op':
      return `${e.op}(${e.operands.map(shape).join(', ')})`;
    case 'qualified':
      return `${e.qualifier.kind}(${shape(e.expr)})`;
    case 'comparison':
      return `${formatObjectPath(e.path)}${e.negated ? ' NOT' : ''} ${e.operator}`;
  }
}

function parseError(pattern: string): StixPatternError {
  try {
    parseStixPattern(pattern);
  } catch (err) {
    expect(err).toBeInstanceOf(StixPatternError);
    return err as StixPatternError;
  }
  throw new Error(`expected ${pattern} to be rejected`);
}

describe('parseStixPattern: structure', () => {
  it('parses a single observation with its comparison, path and value', () => {
    const ast = parseStixPattern("[ipv4-addr:value = '198.51.100.1/32']");
    expect(ast).toEqual({
      kind: 'observation',
      start: 0,
      end: 37,
      comparison: {
        kind: 'comparison',
        path: { objectType: 'ipv4-addr', steps: [{ kind: 'key', name: 'value' }] },
        operator: '=',
        negated: false,
        value: { kind: 'string', value: '198.51.100.1/32' },
        position: 1,
      },
    });
  });

  it('binds AND tighter than OR inside an observation, and parentheses override', () => {
    expect(shape(parseStixPattern("[a:b = '1' OR a:c = '2' AND a:d = '3']"))).toBe('[OR(a:b =, AND(a:c =, a:d =))]');
    expect(shape(parseStixPattern("[(a:b = '1' OR a:c = '2') AND a:d = '3']"))).toBe('[AND(OR(a:b =, a:c =), a:d =)]');
  });

  it('flattens chains of one operator into one node', () => {
    expect(shape(parseStixPattern("[a:b = '1' OR a:b = '2' OR a:b = '3']"))).toBe('[OR(a:b =, a:b =, a:b =)]');
  });

  it('orders observation operators AND over OR over FOLLOWEDBY', () => {
    const p = "[a:b = '1'] OR [a:c = '2'] AND [a:d = '3'] FOLLOWEDBY [a:e = '4']";
    expect(shape(parseStixPattern(p))).toBe('FOLLOWEDBY(OR([a:b =], AND([a:c =], [a:d =])), [a:e =])');
    expect(shape(parseStixPattern("([a:b = '1'] OR [a:c = '2']) AND [a:d = '3']"))).toBe('AND(OR([a:b =], [a:c =]), [a:d =])');
  });

  it('parses WITHIN, REPEATS and START/STOP qualifiers, also chained', () => {
    const within = parseStixPattern("([a:b = 'x'] FOLLOWEDBY [c:d = 'y']) WITHIN 300 SECONDS");
    expect(within).toMatchObject({ kind: 'qualified', qualifier: { kind: 'within', seconds: 300 }, expr: { op: 'FOLLOWEDBY' } });
    expect(parseStixPattern("[a:b = 'x'] WITHIN 2.5 SECONDS")).toMatchObject({ qualifier: { kind: 'within', seconds: 2.5 } });
    const chained = parseStixPattern("[file:name = 'a'] REPEATS 5 TIMES WITHIN 10 SECONDS");
    expect(shape(chained)).toBe('within(repeats([file:name =]))');
    expect(chained).toMatchObject({ expr: { qualifier: { kind: 'repeats', times: 5 } } });
    const startStop = parseStixPattern("[ipv4-addr:value = '1.2.3.4'] START t'2016-06-01T00:00:00Z' STOP t'2016-07-01T00:00:00.123Z'");
    expect(startStop).toMatchObject({
      kind: 'qualified',
      qualifier: { kind: 'start-stop', start: '2016-06-01T00:00:00Z', stop: '2016-07-01T00:00:00.123Z' },
    });
  });

  it('qualifies only the observation it follows', () => {
    expect(shape(parseStixPattern("[a:b = '1'] AND [a:c = '2'] WITHIN 5 SECONDS"))).toBe('AND([a:b =], within([a:c =]))');
  });

  it('accepts every comparison operator, with NOT before it', () => {
    const ops: Array<[string, string]> = [
      ["[a:b = 'x']", '='],
      ["[a:b == 'x']", '='],
      ["[a:b != 'x']", '!='],
      ["[a:b <> 'x']", '!='],
      ['[file:size > 100]', '>'],
      ['[file:size < 100]', '<'],
      ['[file:size >= 100]', '>='],
      ['[file:size <= 100]', '<='],
      ["[a:b IN ('x', 'y')]", 'IN'],
      ["[file:name LIKE 'inv%.exe']", 'LIKE'],
      ["[file:name MATCHES '^inv.*\\\\.exe$']", 'MATCHES'],
      ["[ipv4-addr:value ISSUBSET '198.51.100.0/24']", 'ISSUBSET'],
      ["[ipv4-addr:value ISSUPERSET '198.51.100.1']", 'ISSUPERSET'],
      ['[EXISTS windows-registry-key:values]', 'EXISTS'],
    ];
    for (const [pattern, op] of ops) expect(testOf(pattern).operator, pattern).toBe(op);
    expect(testOf("[file:name NOT = 'x']")).toMatchObject({ negated: true, operator: '=' });
    expect(testOf("[a:b NOT IN ('x')]")).toMatchObject({ negated: true, operator: 'IN' });
    expect(testOf("[file:name NOT MATCHES '^x']")).toMatchObject({ negated: true, operator: 'MATCHES' });
    expect(testOf('[EXISTS windows-registry-key:values]')).toMatchObject({ value: null, path: { objectType: 'windows-registry-key' } });
  });

  it('parses object paths: quoted keys, nested keys, list indexes and [*]', () => {
    expect(testOf("[file:hashes.'SHA-256' = 'x']").path.steps).toEqual([
      { kind: 'key', name: 'hashes' },
      { kind: 'key', name: 'SHA-256' },
    ]);
    expect(testOf("[file:hashes.MD5 = 'x']").path.steps[1]).toEqual({ kind: 'key', name: 'MD5' });
    const nested = testOf("[file:extensions.'windows-pebinary-ext'.sections[*].entropy > 7.0]").path;
    expect(formatObjectPath(nested)).toBe("file:extensions.'windows-pebinary-ext'.sections[*].entropy");
    expect(testOf("[type:prop.sub[0].x = 'v']").path.steps).toEqual([
      { kind: 'key', name: 'prop' },
      { kind: 'key', name: 'sub' },
      { kind: 'index', index: 0 },
      { kind: 'key', name: 'x' },
    ]);
    expect(testOf("[a:list[-1] = 'v']").path.steps[1]).toEqual({ kind: 'index', index: -1 });
    expect(testOf("[x-custom-type:'quoted first' = 'v']").path).toEqual({ objectType: 'x-custom-type', steps: [{ kind: 'key', name: 'quoted first' }] });
  });

  it('decodes literals of every kind', () => {
    expect(testOf("[a:b = 'it\\'s']").value).toEqual({ kind: 'string', value: "it's" });
    expect(testOf("[a:b = 'C:\\\\Windows\\\\x']").value).toEqual({ kind: 'string', value: 'C:\\Windows\\x' });
    expect(testOf("[a:b = '']").value).toEqual({ kind: 'string', value: '' });
    expect(testOf('[a:b = 42]').value).toEqual({ kind: 'int', value: 42, raw: '42' });
    expect(testOf('[a:b = -7]').value).toEqual({ kind: 'int', value: -7, raw: '-7' });
    expect(testOf('[a:b = +7]').value).toEqual({ kind: 'int', value: 7, raw: '+7' });
    expect(testOf('[a:b > 3.25]').value).toEqual({ kind: 'float', value: 3.25, raw: '3.25' });
    expect(testOf('[a:b > .5]').value).toEqual({ kind: 'float', value: 0.5, raw: '.5' });
    expect(testOf('[a:b > -1.5]').value).toEqual({ kind: 'float', value: -1.5, raw: '-1.5' });
    expect(testOf('[a:b = true]').value).toEqual({ kind: 'bool', value: true });
    expect(testOf('[a:b = false]').value).toEqual({ kind: 'bool', value: false });
    expect(testOf("[a:b > t'2020-01-01T00:00:00Z']").value).toEqual({ kind: 'timestamp', value: '2020-01-01T00:00:00Z' });
    expect(testOf("[a:b = h'ff00AB']").value).toEqual({ kind: 'hex', value: 'ff00AB' });
    expect(testOf("[a:b = b'dGVzdA==']").value).toEqual({ kind: 'binary', value: 'dGVzdA==' });
    expect(testOf("[a:b IN ('a', 1, true, h'00')]").value).toEqual({
      kind: 'set',
      values: [
        { kind: 'string', value: 'a' },
        { kind: 'int', value: 1, raw: '1' },
        { kind: 'bool', value: true },
        { kind: 'hex', value: '00' },
      ],
    });
    expect(testOf('[a:b IN ()]').value).toEqual({ kind: 'set', values: [] });
  });

  it('keeps an unescaped backslash (invalid, but common in Windows paths) instead of failing', () => {
    expect(testOf("[file:name = 'C:\\temp\\a.exe']").value).toEqual({ kind: 'string', value: 'C:\\temp\\a.exe' });
  });

  it('skips whitespace of all kinds and comments', () => {
    const p = "\t[ file:name\n  = 'a' /* the dropper */ AND\r\n file:size > 1 ] // trailing note\n";
    expect(shape(parseStixPattern(p))).toBe('[AND(file:name =, file:size >)]');
    expect(shape(parseStixPattern("[\u00a0a:b\u3000=\u2003'x'\u0085]"))).toBe('[a:b =]');
  });

  it('tolerates STIX 2.0 habits: lowercase keywords and START/STOP with plain strings', () => {
    expect(shape(parseStixPattern("[a:b = 'x' and a:c like 'y%'] or [a:d = TRUE] within 5 seconds"))).toBe(
      'OR([AND(a:b =, a:c LIKE)], within([a:d =]))',
    );
    expect(parseStixPattern("[a:b = 'x'] START '2016-06-01T00:00:00Z' STOP '2016-07-01T00:00:00Z'")).toMatchObject({
      qualifier: { kind: 'start-stop', start: '2016-06-01T00:00:00Z' },
    });
  });

  it('treats keyword-like words as names where a name is expected', () => {
    expect(formatObjectPath(testOf("[x-thing:in.last = 'v']").path)).toBe('x-thing:in.last');
    expect(testOf("[exists:value = 'v']").path.objectType).toBe('exists');
  });
});

describe('parseStixPattern: errors', () => {
  it.each([
    ["[file:name = 'abc]", /Unterminated string/, 13],
    ["[file:name = 'abc'", /Missing '\]' to close the observation expression opened at position 0/, 18],
    ["[file:name = 'a' OR file:name = 'b'", /Missing '\]'/, 35],
    ["([a:b = 'x']", /Missing '\)' to close the parenthesis opened at position 0/, 12],
    ["[file:name CONTAINS 'x']", /Unknown operator "CONTAINS" after file:name/, 11],
    ["[file:name =~ 'x']", /Unknown operator "=~"/, 11],
    ["[file:name 'x']", /Expected a comparison operator after file:name, found the string 'x'/, 11],
    ["[a:b = 'x'] extra", /Unexpected "extra" after the end of the pattern/, 12],
    ["[a:b = 'x']]", /Unexpected "\]" after the end of the pattern/, 11],
    ["[a:b = 'x'] AND", /Expected '\[' or '\(' to start an observation expression, found the end of the pattern/, 15],
    ['', /The pattern is empty/, 0],
    ['   ', /The pattern is empty/, 0],
    ["file:name = 'x'", /Expected '\[' or '\('/, 0],
    ["[file = 'x']", /Expected ':' after the object type "file"/, 6],
    ["[a:b = ]", /Expected a value after =, found "\]"/, 7],
    ["[a:b IN 'x']", /IN needs a parenthesised list/, 8],
    ["[a:b IN ('x' 'y')]", /Missing '\)' to close the IN list/, 13],
    ["[a:b LIKE 5]", /LIKE needs a quoted string/, 10],
    ['[a:b > true]', /> cannot compare with a boolean/, 7],
    ["[a:b = t'2020-13-01T00:00:00Z']", /Invalid timestamp/, 7],
    ["[a:b = t'2020-01-01 00:00:00']", /Invalid timestamp/, 7],
    ["[a:b = h'abc']", /Invalid hex literal/, 7],
    ["[a:b = b'not base64!']", /Invalid binary literal/, 7],
    ['[a:b = "x"]', /single quotes/, 7],
    ["[a:b = 'x'] WITHIN 5", /Expected SECONDS after WITHIN 5/, 20],
    ["[a:b = 'x'] WITHIN -5 SECONDS", /WITHIN needs a positive number/, 19],
    ["[a:b = 'x'] REPEATS 1.5 TIMES", /REPEATS needs a positive whole number/, 20],
    ["[a:b = 'x'] START t'2020-01-01T00:00:00Z'", /Expected STOP/, 41],
    ["[a:b = 'x'] START 'yesterday' STOP t'2020-01-01T00:00:00Z'", /START needs a timestamp/, 18],
    ["[a:b = 'x'] STOP t'2020-01-01T00:00:00Z'", /STOP without a preceding START/, 12],
    ["[NOT file:name = 'x']", /NOT goes between the object path and the operator/, 1],
    ['[file:name EXISTS]', /EXISTS goes before the object path/, 11],
    ["[file:some-prop = 'x']", /Property name "some-prop" contains '-'/, 6],
    ["[a:b[x] = 'x']", /Expected a list index or '\*'/, 5],
    ["[a:b = 'x'] /* open", /Unterminated comment/, 12],
    ["[a:b = 'x' @ ]", /Unexpected character "@"/, 11],
    ['[a:b = 12abc]', /Invalid number/, 7],
  ])('rejects %j', (pattern, message, position) => {
    const err = parseError(pattern);
    expect(err.message).toMatch(message);
    expect(err.position).toBe(position);
    expect(err.message).toContain(`(at position ${position})`);
  });

  it('rejects pathological nesting with a StixPatternError, not a stack overflow', () => {
    const deep = `${'('.repeat(5000)}[a:b = 'x']${')'.repeat(5000)}`;
    expect(parseError(deep).message).toMatch(/nests more than 100 levels/);
    const deepComparison = `[${'('.repeat(5000)}a:b = 'x'${')'.repeat(5000)}]`;
    expect(parseError(deepComparison).message).toMatch(/nests more than 100 levels/);
  });

  it('accepts moderate nesting', () => {
    expect(shape(parseStixPattern(`${'('.repeat(50)}[a:b = 'x']${')'.repeat(50)}`))).toBe('[a:b =]');
  });

  it('handles a pattern with thousands of OR-ed values without deep recursion', () => {
    const values = Array.from({ length: 20_000 }, (_, i) => `ipv4-addr:value = '10.0.${(i >> 8) & 255}.${i & 255}'`);
    const ast = parseStixPattern(`[${values.join(' OR ')}]`) as ObservationNode;
    expect(ast.comparison).toMatchObject({ kind: 'comparison-op', op: 'OR' });
    expect((ast.comparison as { operands: unknown[] }).operands).toHaveLength(20_000);
  });
});
