import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { parseSigmaRules } from './sigma-import.fns.js';
import { compileSigma } from './sigma/sigma-compile.fns.js';
import { runTests } from './sigma/sigma-tests.fns.js';
import { sharedPath } from '../../../test/support/shared-dir.js';

const vocab = { isTechnique: (id: string) => id === 'T1110', isTactic: (t: string) => t === 'credential-access' };

// A correlation rule with its base rule, and an unrelated rule, in one import.
const content = `title: Failed logon
name: failed_logon
logsource: {product: windows, service: security}
tags: [attack.t1110]
detection:
  sel: {EventID: 4625}
  condition: sel
---
title: Password spraying burst
id: 0e95725d-7320-415d-80f7-004da920fc11
level: high
correlation:
  type: event_count
  rules: [failed_logon]
  group-by: [User]
  timespan: 5m
  condition: {gte: 5}
---
title: Other
logsource: {product: linux}
detection:
  keywords: [mkfifo]
  condition: keywords
`;

describe('parseSigmaRules: a correlation and its rules', () => {
  it('imports them as one detection that compiles and runs on events; other rules stay their own', () => {
    const parsed = parseSigmaRules(content, vocab);
    expect(parsed.map((p) => [p.index, p.title, p.error ?? null])).toEqual([
      [0, 'Password spraying burst', null],
      [1, 'Other', null],
    ]);
    const unit = parsed[0]!.detection!;
    expect(unit).toMatchObject({ name: 'Password spraying burst', ruleId: '0e95725d-7320-415d-80f7-004da920fc11', severity: 'high', attackTechniques: ['T1110'], logTable: { source: 'windows', stream: 'security' } });
    const compiled = compileSigma(unit.query);
    expect(compiled.refusals).toEqual([]);
    expect(compiled.correlations).toHaveLength(1);
    const burst = Array.from({ length: 5 }, (_, i) => ({ EventID: 4625, User: 'bob', '@timestamp': `2026-01-01T00:00:0${i}Z` }));
    const [five, four] = runTests(compiled, [
      { name: 'five', events: burst, expect: 'match' },
      { name: 'four', events: burst.slice(0, 4), expect: 'no_match' },
    ] as never);
    expect(five!.passed).toBe(true);
    expect(four!.passed).toBe(true);
  });

  it('refuses a correlation whose rules are not in the file', () => {
    const parsed = parseSigmaRules(content.split('---\n')[1]!, vocab);
    expect(parsed).toEqual([{ index: 0, ruleId: '0e95725d-7320-415d-80f7-004da920fc11', title: 'Password spraying burst', error: 'Sigma correlation rule without its rules: the file must hold the rules it names (by name or id)' }]);
  });
});

// SigmaHQ writes a keyword search with modifiers as a map with an empty field name
// (`keywords: {'|all': [grep, password]}`): the specification allows it, the engine runs it.
const SIGMA_RULES = sharedPath('fixtures/sigma/rules/rules');
describe.skipIf(!fs.existsSync(SIGMA_RULES))('parseSigmaRules: keywords with modifiers (SigmaHQ, DRL 1.1)', () => {
  it('imports lnx_auditd_find_cred_in_files.yml and matches only an event holding every keyword', () => {
    const text = fs.readFileSync(path.join(SIGMA_RULES, 'linux/auditd/execve/lnx_auditd_find_cred_in_files.yml'), 'utf8');
    const [parsed] = parseSigmaRules(text, vocab);
    expect(parsed!.error ?? null).toBeNull();
    const compiled = compileSigma(parsed!.detection!.query);
    expect(compiled.refusals).toEqual([]);
    const [both, one] = runTests(compiled, [
      { name: 'both', event: { type: 'EXECVE', a0: 'grep', a1: '-r', a2: 'password', a3: '/etc' }, expect: 'match' },
      { name: 'one', event: { type: 'EXECVE', a0: 'grep', a1: '-r', a2: 'secret' }, expect: 'no_match' },
    ] as never);
    expect(both!.passed).toBe(true);
    expect(one!.passed).toBe(true);
  });
});
