import { describe, expect, it } from 'vitest';
import { compileSigma } from './sigma-compile.fns.js';
import { convertUnit } from './sigma-convert-correlation.fns.js';
import { ConversionError } from './sigma-convert.fns.js';

// The pySigma pairs are in sigma-convert.fns.test.ts; these are the forms they do not cover.
const BASE = `title: Failed logon
name: failed_logon
logsource: {product: windows, service: security}
fields: [IpAddress, User]
detection:
  sel: {EventID: 4625}
  condition: sel
---
title: Successful logon
name: logon_ok
logsource: {product: windows, service: security}
detection:
  sel: {EventID: 4624}
  condition: sel
`;
const unit = (correlation: string) => compileSigma(`${BASE}---\ntitle: Correlation\ncorrelation:\n${correlation.replace(/^/gm, '  ')}\n`, { forConversion: true });
const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConversionError) return err.construct;
    throw err;
  }
  throw new Error('converted');
};

describe('correlation rules as queries', () => {
  it('a temporal correlation of two rules in ES|QL labels each event with its rule and counts distinct rules', () => {
    const u = unit('type: temporal\nrules: [failed_logon, logon_ok]\ngroup-by: [User]\ntimespan: 10m');
    expect(u.refusals).toEqual([]);
    expect(convertUnit(u, 'esql', null)).toEqual([
      'from * metadata _id, _index, _version | where (EventID==4625) or (EventID==4624)\n' +
        '| eval event_type=case(EventID==4625, "failed_logon", EventID==4624, "logon_ok")\n' +
        '| eval timebucket=date_trunc(10minutes, @timestamp) | stats event_type_count=count_distinct(event_type), IpAddress=values(IpAddress) by timebucket, User\n' +
        '| where event_type_count >= 2',
    ]);
  });

  it('a range threshold writes both bounds; generate: true keeps the base rule\'s own query', () => {
    const u = unit('type: event_count\nrules: [failed_logon]\ngenerate: true\ngroup-by: [User]\ntimespan: 1h\ncondition: {gte: 5, lte: 20}');
    expect(convertUnit(u, 'splunk', null)).toEqual([
      'EventID=4625',
      'EventID=4624',
      'EventID=4625\n\n| bin _time span=1h\n| stats count as event_count by _time User\n\n| search event_count >= 5 event_count <= 20',
    ]);
  });

  it('Lucene and Kusto refuse a correlation; temporal_ordered and a pipeline are refused by name', () => {
    const u = unit('type: event_count\nrules: [failed_logon]\ngroup-by: [User]\ntimespan: 5m\ncondition: {gte: 5}');
    expect(refusal(() => convertUnit(u, 'elasticsearch-lucene', null))).toBe('correlation');
    expect(refusal(() => convertUnit(u, 'kusto', null))).toBe('correlation');
    expect(refusal(() => convertUnit(u, 'esql', 'ecs_windows'))).toBe('correlation with pipeline ecs_windows');
    const ordered = unit('type: temporal_ordered\nrules: [failed_logon, logon_ok]\ngroup-by: [User]\ntimespan: 5m');
    expect(refusal(() => convertUnit(ordered, 'splunk', null))).toBe('correlation type temporal_ordered');
    expect(refusal(() => convertUnit(ordered, 'esql', null))).toBe('correlation type temporal_ordered');
  });

  it('an upper bound alone converts (the SIEM closes its buckets) but does not run on events', () => {
    const text = 'type: value_count\nrules: [failed_logon]\ngroup-by: [IpAddress]\ntimespan: 1d\ncondition: {lt: 3, field: User}';
    // The rule no correlation names keeps its own query.
    expect(convertUnit(unit(text), 'splunk', null)).toEqual([
      'EventID=4624',
      'EventID=4625\n\n| bin _time span=1d\n| stats dc(User) as value_count by _time IpAddress\n\n| search value_count < 3',
    ]);
    const running = compileSigma(`${BASE}---\ntitle: Correlation\ncorrelation:\n${text.replace(/^/gm, '  ')}\n`);
    expect(running.refusals.map((r) => r.construct)).toEqual(['correlation condition lt']);
  });
});
