import { describe, expect, it } from 'vitest';
import { compareValues, compareWfns, cpeDisjoint, cpeEqual, cpeSubset, cpeSuperset, parseWfn, plainValue, type WfnValue } from './cpe-match.fns.js';

/**
 * NIST IR 7696 (CPE Name Matching 2.3): Table 6-2, the attribute comparison relations
 * (source × target: ANY, NA, a wildcard-free value i, values k ≠ i, a value m with wildcards),
 * the wildcard rules of §6.1.3.2 and the name-level relations of §6.2, with the examples of the
 * specification's reference implementation (MITRE's CPENameMatcher).
 */
const ANY: WfnValue = { kind: 'any' };
const NA: WfnValue = { kind: 'na' };
const v = (quoted: string): WfnValue => ({ kind: 'value', quoted });

describe('IR 7696 Table 6-2: attribute comparison relations', () => {
  const rows: Array<[number, WfnValue, WfnValue, string]> = [
    [1, ANY, ANY, 'equal'],
    [2, ANY, NA, 'superset'],
    [3, ANY, v('i'), 'superset'],
    [4, ANY, v('m*'), 'undefined'],
    [5, NA, ANY, 'subset'],
    [6, NA, NA, 'equal'],
    [7, NA, v('i'), 'disjoint'],
    [8, NA, v('m*'), 'undefined'],
    [9, v('i'), ANY, 'subset'],
    [10, v('i'), NA, 'disjoint'],
    [11, v('i'), v('i'), 'equal'],
    [12, v('i'), v('k'), 'disjoint'],
    [13, v('i'), v('m*'), 'undefined'],
    [14, v('m*'), ANY, 'subset'],
    [15, v('m*'), NA, 'disjoint'],
    [16, v('m*'), v('m\\+wild'), 'superset'],
    [17, v('m*'), v('k'), 'disjoint'],
  ];
  it.each(rows)('row %i', (_n, source, target, relation) => {
    expect(compareValues(source, target)).toBe(relation);
  });
});

describe('IR 7696 §6.1.3.2: wildcards in source values', () => {
  const cases: Array<[string, string, string]> = [
    ['8\\.*', '8\\.0\\.6001', 'superset'],
    ['8\\.*', '9\\.0', 'disjoint'],
    ['*\\.6001', '8\\.0\\.6001', 'superset'],
    ['*0\\.6*', '8\\.0\\.6001', 'superset'],
    ['sp?', 'sp2', 'superset'],
    // `?` at the end matches at most one character (the reference algorithm's leftover ≤ ends).
    ['sp?', 'sp12', 'disjoint'],
    ['sp??', 'sp12', 'superset'],
    ['?p2', 'sp2', 'superset'],
    ['?p2', 'xsp2', 'disjoint'],
    ['sp?', 'sp', 'superset'],
    // A quoted `*` or `?` is the character itself, not a wildcard.
    ['sp\\?', 'sp2', 'disjoint'],
    ['sp\\?', 'sp\\?', 'equal'],
    ['a\\*', 'a\\*', 'equal'],
    ['a\\*', 'abc', 'disjoint'],
  ];
  it.each(cases)('%s against %s', (source, target, relation) => {
    expect(compareValues(v(source), v(target))).toBe(relation);
  });
});

describe('the formatted string and URI bindings (IR 7695 §6.1, §6.2)', () => {
  it('reads ANY, NA, quoted punctuation and missing trailing components', () => {
    const w = parseWfn('cpe:2.3:a:citrix:netscaler_application_delivery_controller:13.1-37.170:*:*:*:fips:*:*:*')!;
    expect(w.version).toEqual(v('13\\.1\\-37\\.170'));
    expect(plainValue(w.version)).toBe('13.1-37.170');
    expect(w.sw_edition).toEqual(v('fips'));
    expect(w.update).toEqual(ANY);
    expect(parseWfn('cpe:2.3:a:apache:http_server')!.other).toEqual(ANY);
    expect(parseWfn('cpe:2.3:o:vendor:prod:-')!.version).toEqual(NA);
  });
  it('keeps an escaped colon inside a value and quotes it as the WFN does', () => {
    const w = parseWfn('cpe:2.3:a:foo\\:bar:baz:1.0:*:*:*:*:*:*:*')!;
    expect(w.vendor).toEqual(v('foo\\:bar'));
    expect(w.product).toEqual(v('baz'));
  });
  it('is case-insensitive', () => {
    expect(cpeEqual(compareWfns(parseWfn('cpe:2.3:a:Microsoft:Internet_Explorer:8.0:*:*:*:*:*:*:*')!, parseWfn('cpe:2.3:a:microsoft:internet_explorer:8.0:*:*:*:*:*:*:*')!))).toBe(true);
  });
  it('reads a 2.2 URI with its packed edition and percent-encoded wildcards', () => {
    const w = parseWfn('cpe:/a:hp:insight_diagnostics:7.4.0.1570:-:~~online~win2003~x64~')!;
    expect(w.update).toEqual(NA);
    expect(w.edition).toEqual(ANY);
    expect(w.sw_edition).toEqual(v('online'));
    expect(w.target_sw).toEqual(v('win2003'));
    expect(w.target_hw).toEqual(v('x64'));
    expect(parseWfn('cpe:/a:foo:bar:1.%02')!.version).toEqual(v('1\\.*'));
  });
  it('rejects names of neither binding and unknown parts', () => {
    expect(parseWfn('pkg:npm/foo@1')).toBeNull();
    expect(parseWfn('cpe:2.3:x:foo:bar:1')).toBeNull();
  });
});

describe('IR 7696 §6.2: name comparison', () => {
  it('CPE_SUBSET: every attribute subset or equal (the reference implementation example)', () => {
    const source = parseWfn('cpe:2.3:a:microsoft:internet_explorer:8.0.6001:beta:*:sp2:*:*:*:*')!;
    const target = parseWfn('cpe:2.3:a:microsoft:internet_explorer:*:*:*:*:*:*:*:*')!;
    const r = compareWfns(source, target);
    expect(cpeSubset(r)).toBe(true);
    expect(cpeSuperset(r)).toBe(false);
    expect(cpeDisjoint(r)).toBe(false);
    expect(cpeEqual(r)).toBe(false);
    expect(cpeSuperset(compareWfns(target, source))).toBe(true);
  });
  it('CPE_DISJOINT: a value against NA in any attribute (the reference implementation example)', () => {
    const source = parseWfn('cpe:2.3:a:adobe:*:9.*:*:PalmOS:*:*:*:*:*')!;
    const target = parseWfn('cpe:/a::Reader:9.3.2:-:-')!;
    expect(cpeDisjoint(compareWfns(source, target))).toBe(true);
  });
  it('edition NA and edition fips are disjoint (issue 49: NetScaler FIPS)', () => {
    const range = parseWfn('cpe:2.3:a:citrix:netscaler_application_delivery_controller:*:*:*:*:-:*:*:*')!;
    const fips = parseWfn('cpe:2.3:a:citrix:netscaler_application_delivery_controller:13.1-37.170:*:*:*:fips:*:*:*')!;
    const r = compareWfns(range, fips);
    expect(r.sw_edition).toBe('disjoint');
    expect(cpeDisjoint(r)).toBe(true);
    const fipsRange = parseWfn('cpe:2.3:a:citrix:netscaler_application_delivery_controller:*:*:*:*:fips:*:*:*')!;
    expect(cpeSuperset(compareWfns(fipsRange, fips))).toBe(true);
  });
  it('a target with wildcards makes the comparison undefined: neither superset nor disjoint', () => {
    const r = compareWfns(parseWfn('cpe:2.3:a:microsoft:internet_explorer:8.0.6001:beta:*:*:*:*:*:*')!, parseWfn('cpe:2.3:a:microsoft:internet_explorer:8.*:sp?:*:*:*:*:*:*')!);
    expect(r.version).toBe('undefined');
    expect(r.update).toBe('undefined');
    expect(cpeSuperset(r) || cpeSubset(r) || cpeDisjoint(r) || cpeEqual(r)).toBe(false);
  });
});
