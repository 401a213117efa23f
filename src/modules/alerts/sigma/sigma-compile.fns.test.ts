import { describe, expect, it } from 'vitest';
import { compileSigma, type CompiledRule } from './sigma-compile.fns.js';
import { CorrelationWindow } from './sigma-correlation.fns.js';
import { EventView } from './sigma-event.fns.js';

function rule(detection: string, options: Parameters<typeof compileSigma>[1] = {}): CompiledRule {
  const unit = compileSigma(`title: t\nlogsource:\n  product: windows\ndetection:\n${detection.replace(/^/gm, '  ')}\n`, options);
  expect(unit.refusals).toEqual([]);
  return unit.rules[0]!;
}
const hit = (r: CompiledRule, event: Record<string, unknown>) => {
  const fast = r.matches(new EventView(event));
  expect(r.explain(event).matched).toBe(fast); // the pre-filter never changes the answer
  return fast;
};

describe('Sigma values', () => {
  it('matches case-insensitively by default, exactly with |cased', () => {
    const r = rule('sel:\n  Image: C:\\Windows\\cmd.exe\ncondition: sel');
    expect(hit(r, { Image: 'c:\\windows\\CMD.EXE' })).toBe(true);
    expect(hit(r, { Image: 'c:\\windows\\cmd.exe2' })).toBe(false);
    const c = rule('sel:\n  Image|cased: Cmd.exe\ncondition: sel');
    expect(hit(c, { Image: 'Cmd.exe' })).toBe(true);
    expect(hit(c, { Image: 'cmd.exe' })).toBe(false);
  });

  it('reads wildcards and their escapes', () => {
    const r = rule("sel:\n  a: 'x*y?z'\n  b: 'lit\\*eral'\n  c: 'back\\\\*'\ncondition: sel");
    expect(hit(r, { a: 'xANYyQz', b: 'lit*eral', c: 'back\\slash' })).toBe(true);
    expect(hit(r, { a: 'xQQz', b: 'lit*eral', c: 'back\\slash' })).toBe(false);
    expect(hit(r, { a: 'xy1z', b: 'litXeral', c: 'back\\' })).toBe(false);
    const plain = rule("sel:\n  a: 'C:\\Temp\\x'\ncondition: sel");
    expect(hit(plain, { a: 'C:\\Temp\\x' })).toBe(true);
  });

  it('contains, startswith, endswith, all, and lists as alternatives', () => {
    const r = rule("sel:\n  CommandLine|contains|all:\n    - ' -enc '\n    - 'hidden'\n  Image|endswith:\n    - '\\powershell.exe'\n    - '\\pwsh.exe'\n  User|startswith: 'NT AUTH'\ncondition: sel");
    expect(hit(r, { CommandLine: 'p -w Hidden -enc AAA ', Image: 'C:\\x\\pwsh.exe', User: 'nt authority\\system' })).toBe(true);
    expect(hit(r, { CommandLine: 'p -enc AAA', Image: 'C:\\x\\pwsh.exe', User: 'nt authority\\system' })).toBe(false);
  });

  it('null matches an absent field, empty string an empty value, exists presence', () => {
    const r = rule("sel:\n  ParentImage: null\n  Desc: ''\ncondition: sel");
    expect(hit(r, { Desc: '' })).toBe(true);
    expect(hit(r, { ParentImage: null, Desc: '' })).toBe(true);
    expect(hit(r, { ParentImage: 'x', Desc: '' })).toBe(false);
    const e = rule('sel:\n  Hash|exists: true\nfilter:\n  Skip|exists: false\ncondition: sel and filter');
    expect(hit(e, { Hash: 'x' })).toBe(true);
    expect(hit(e, { Hash: 'x', Skip: 1 })).toBe(false);
  });

  it('a.b reads a nested object or a flat key; arrays match by any element', () => {
    const r = rule("sel:\n  process.name: bash\n  tags: prod\ncondition: sel");
    expect(hit(r, { process: { name: 'bash' }, tags: ['dev', 'prod'] })).toBe(true);
    expect(hit(r, { 'process.name': 'bash', tags: 'prod' })).toBe(true);
    expect(hit(r, { process: { name: 'zsh' }, tags: 'prod' })).toBe(false);
  });

  it('re searches unless anchored, with its i/m/s flags', () => {
    const r = rule("sel:\n  a|re: 'ab+c'\ncondition: sel");
    expect(hit(r, { a: 'xxabbbcxx' })).toBe(true);
    const anchored = rule("sel:\n  a|re: '^ab+c$'\ncondition: sel");
    expect(hit(anchored, { a: 'xxabbbcxx' })).toBe(false);
    const i = rule("sel:\n  a|re|i: '^ABC'\ncondition: sel");
    expect(hit(i, { a: 'abcd' })).toBe(true);
    expect(hit(rule("sel:\n  a|re: '^ABC'\ncondition: sel"), { a: 'abcd' })).toBe(false);
    expect(hit(rule("sel:\n  a|re|s: 'a.b'\ncondition: sel"), { a: 'a\nb' })).toBe(true);
    expect(hit(rule("sel:\n  a|re|m: '^b$'\ncondition: sel"), { a: 'a\nb' })).toBe(true);
  });

  it('base64, base64offset, utf16 forms and wide', () => {
    const b = rule("sel:\n  a|base64: 'ping'\ncondition: sel");
    expect(hit(b, { a: Buffer.from('ping').toString('base64') })).toBe(true);
    const off = rule("sel:\n  a|base64offset|contains: 'http://'\ncondition: sel");
    for (const prefix of ['', 'x', 'xy']) expect(hit(off, { a: `AA${Buffer.from(`${prefix}http://evil`).toString('base64')}` })).toBe(true);
    const wide = rule("sel:\n  a|wide|base64offset|contains: 'IEX'\ncondition: sel");
    expect(hit(wide, { a: Buffer.from('x; IEX (New-Object', 'utf16le').toString('base64') })).toBe(true);
    const be = rule("sel:\n  a|utf16be|base64: 'ab'\ncondition: sel");
    expect(hit(be, { a: Buffer.from([0, 0x61, 0, 0x62]).toString('base64') })).toBe(true);
    const bom = rule("sel:\n  a|utf16|base64: 'ab'\ncondition: sel");
    expect(hit(bom, { a: Buffer.from([0xff, 0xfe, 0x61, 0, 0x62, 0]).toString('base64') })).toBe(true);
  });

  it('windash, cidr, numeric comparisons, fieldref, expand', () => {
    const w = rule("sel:\n  c|windash|contains: ' -f '\ncondition: sel");
    for (const dash of ['-', '/', '\u2013', '\u2014', '\u2015']) expect(hit(w, { c: `x ${dash}f y` })).toBe(true);
    expect(hit(w, { c: 'x +f y' })).toBe(false);
    const cidr = rule("sel:\n  ip|cidr:\n    - 10.0.0.0/8\n    - 'fe80::/10'\ncondition: sel");
    expect(hit(cidr, { ip: '10.2.3.4' })).toBe(true);
    expect(hit(cidr, { ip: 'fe80::1' })).toBe(true);
    expect(hit(cidr, { ip: '11.0.0.1' })).toBe(false);
    const n = rule('sel:\n  size|gte: 100\n  size|lt: 200\ncondition: sel');
    expect(hit(n, { size: '150' })).toBe(true);
    expect(hit(n, { size: 200 })).toBe(false);
    const ref = rule('sel:\n  User|fieldref: ParentUser\ncondition: sel');
    expect(hit(ref, { User: 'A', ParentUser: 'a' })).toBe(true);
    expect(hit(ref, { User: 'A', ParentUser: 'b' })).toBe(false);
    const exp = rule("sel:\n  host|expand: '%dc%'\ncondition: sel", { placeholders: { dc: ['dc1', 'dc2'] } });
    expect(hit(exp, { host: 'DC2' })).toBe(true);
  });

  it('keywords search every value, keyword modifiers included', () => {
    const r = rule("keywords:\n  - 'rm -rf'\n  - 'mkfifo'\ncondition: keywords");
    expect(hit(r, { msg: 'sudo rm -rf /' })).toBe(true);
    expect(hit(r, { msg: 'ls' })).toBe(false);
    const all = rule("kw:\n  '|all':\n    - 'a1b'\n    - 'c2d'\ncondition: kw");
    expect(hit(all, { x: 'A1B', y: ['c2d'] })).toBe(true);
    expect(hit(all, { x: 'A1B' })).toBe(false);
  });
});

describe('Sigma conditions', () => {
  const r = rule(
    "selection_a:\n  a: 1\nselection_b:\n  b: 2\nfilter_main:\n  c: 3\n_hidden:\n  d: 4\ncondition: (1 of selection_* and not filter_main) or all of them",
  );
  it('1 of, all of, them (without _names), not, parentheses', () => {
    expect(hit(r, { a: 1 })).toBe(true);
    expect(hit(r, { a: 1, c: 3 })).toBe(false);
    expect(hit(r, { a: 1, b: 2, c: 3 })).toBe(true);
    expect(r.explain({ a: 1, c: 3 }).matchedSelections).toEqual(['selection_a', 'filter_main']);
  });
  it('and binds tighter than or', () => {
    const p = rule('x:\n  a: 1\ny:\n  b: 1\nz:\n  c: 1\ncondition: x or y and z');
    expect(hit(p, { a: 1 })).toBe(true);
    expect(hit(p, { b: 1 })).toBe(false);
  });
});

describe('refusals name the rule, the construct and the line', () => {
  it.each([
    ['sel:\n  a|frobnicate: 1\ncondition: sel', 'modifier |frobnicate', 6],
    ['sel:\n  a: 1\ncondition: sel | count() > 5', 'condition aggregation (|)', 7],
    ['sel:\n  a: 1\ncondition: sel and missing', 'condition', 7],
    ["sel:\n  a|re: '(?<'\ncondition: sel", 'modifier |re', 6],
    ["sel:\n  a|cidr: 'nope'\ncondition: sel", 'modifier |cidr', 6],
    ["sel:\n  a|expand: '%x%'\ncondition: sel", 'placeholder %x%', 6],
    ['sel:\n  a|i: x\ncondition: sel', 'modifier |i', 6],
  ])('%s', (detection, construct, line) => {
    const unit = compileSigma(`title: Bad rule\nlogsource:\n  product: windows\ndetection:\n${detection.replace(/^/gm, '  ')}\n`);
    expect(unit.rules).toEqual([]);
    expect(unit.refusals).toMatchObject([{ rule: 'Bad rule', construct, line }]);
  });
});

describe('correlation rules', () => {
  const text = `title: Failed logon
name: failed_logon
logsource:
  product: windows
  service: security
detection:
  sel:
    EventID: 4625
  condition: sel
---
title: Many failed logons
correlation:
  type: event_count
  rules:
    - failed_logon
  group-by:
    - User
  timespan: 5m
  condition:
    gte: 5
`;
  it('event_count: one hit for a burst of 5 in 5 minutes per User, none for 4', () => {
    const unit = compileSigma(text);
    expect(unit.refusals).toEqual([]);
    const [base] = unit.rules;
    const w = new CorrelationWindow(unit.correlations[0]!);
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const feed = (user: string, i: number) => w.add(base!, { EventID: 4625, User: user }, t0 + i * 30_000);
    const hits = [0, 1, 2, 3].map((i) => feed('bob', i));
    expect(hits.every((h) => h === null)).toBe(true);
    expect([0, 1, 2, 3].map((i) => feed('alice', i)).every((h) => h === null)).toBe(true);
    const fifth = feed('bob', 4);
    expect(fifth).toMatchObject({ group: { User: 'bob' } });
    expect(fifth!.events).toHaveLength(5);
    expect(feed('bob', 5)).toBeNull(); // starts over after the hit
    // Outside the window: 4 old + 1 late is not 5 in 5 minutes.
    expect(w.add(base!, { User: 'alice' }, t0 + 10 * 60_000)).toBeNull();
  });

  it('value_count, temporal and temporal_ordered', () => {
    const base = `title: A
name: a
logsource: {product: x}
detection: {s: {k: a}, condition: s}
---
title: B
name: b
logsource: {product: x}
detection: {s: {k: b}, condition: s}
---
`;
    const vc = compileSigma(`${base}title: V\ncorrelation: {type: value_count, rules: [a], group-by: [h], timespan: 1m, condition: {field: port, gte: 3}}\n`);
    const w = new CorrelationWindow(vc.correlations[0]!);
    const a = vc.rules[0]!;
    expect(w.add(a, { h: 1, port: 1 }, 0)).toBeNull();
    expect(w.add(a, { h: 1, port: 1 }, 1)).toBeNull();
    expect(w.add(a, { h: 1, port: 2 }, 2)).toBeNull();
    expect(w.add(a, { h: 1, port: 3 }, 3)).not.toBeNull();

    const ord = compileSigma(`${base}title: O\ncorrelation: {type: temporal_ordered, rules: [a, b], group-by: [h], timespan: 1m}\n`);
    const wo = new CorrelationWindow(ord.correlations[0]!);
    const [ra, rb] = ord.rules;
    expect(wo.add(rb!, { h: 1 }, 0)).toBeNull();
    expect(wo.add(ra!, { h: 1 }, 1)).toBeNull();
    expect(wo.add(rb!, { h: 1 }, 2)).not.toBeNull();

    const tmp = compileSigma(`${base}title: T\ncorrelation: {type: temporal, rules: [a, b], group-by: [h], timespan: 1m}\n`);
    const wt = new CorrelationWindow(tmp.correlations[0]!);
    expect(wt.add(tmp.rules[1]!, { h: 1 }, 0)).toBeNull();
    expect(wt.add(tmp.rules[0]!, { h: 2 }, 1)).toBeNull();
    expect(wt.add(tmp.rules[0]!, { h: 1 }, 70_000)).toBeNull(); // b fell out of the window
  });

  it('refuses a reference to an unknown rule and an upper bound alone', () => {
    const u = compileSigma(`title: C\ncorrelation: {type: event_count, rules: [nope], timespan: 1m, condition: {gte: 2}}\n`);
    expect(u.refusals).toMatchObject([{ rule: 'C', construct: 'correlation rule reference', line: 2 }]);
    const l = compileSigma(`title: A\nname: a\nlogsource: {product: x}\ndetection: {s: {k: a}, condition: s}\n---\ntitle: C\ncorrelation:\n  type: event_count\n  rules: [a]\n  timespan: 1m\n  condition:\n    lt: 2\n`);
    expect(l.refusals).toMatchObject([{ construct: 'correlation condition lt', line: 11 }]);
  });
});
