import { describe, expect, it } from 'vitest';
import { evaluatePackage } from './affected.fns.js';

const pkg = (extra: Record<string, unknown>) => ({ ecosystem: 'npm', name: 'x', purl: 'pkg:npm/x', ranges: [], versions: [], ...extra });

describe('CSAF packages (fixed / not-affected lists beside the affected ones)', () => {
  it('a fix-only document (Red Hat) reads as "before the fix on that line"; at or after it, not affected', () => {
    const rpm = pkg({ ecosystem: 'Red Hat', fixed: ['0.17-65.el7_6'], unaffected: [] });
    expect(evaluatePackage(rpm, '0.17-64.el7')).toEqual({ verdict: 'affected', affectedRange: '<0.17-65.el7_6', fixedVersion: '0.17-65.el7_6' });
    expect(evaluatePackage(rpm, '0.17-65.el7_6').verdict).toBe('not_affected');
    expect(evaluatePackage(rpm, '0.17-66.el7').verdict).toBe('not_affected');
  });
  it('several fixes: the one on the installed line decides; a line with no fix is unknown', () => {
    const lines = pkg({ fixed: ['2.12.2', '2.16.0'], versions: ['2.14.1'], unaffected: [] });
    expect(evaluatePackage(lines, '2.14.1')).toEqual({ verdict: 'affected', affectedRange: '=2.14.1', fixedVersion: '2.16.0' });
    expect(evaluatePackage(lines, '2.12.4').verdict).toBe('not_affected');
    expect(evaluatePackage(lines, '2.13.0').verdict).toBe('unknown'); // 2.12.2 fixed the 2.12 branch; 2.16.0 is the 2.13+ fix
    expect(evaluatePackage(lines, '2.17.0').verdict).toBe('not_affected');
    expect(evaluatePackage(pkg({ fixed: ['3.1.0', '4.2.0'], versions: ['3.0.0'], unaffected: [] }), '1.9.0').verdict).toBe('unknown');
  });
  it('exact affected versions only: an unlisted version is unknown, a known_not_affected one is not affected', () => {
    const exact = pkg({ versions: ['1.0.0-rc1'], fixed: [], unaffected: ['0.9.0'] });
    expect(evaluatePackage(exact, '1.0.0-rc0').verdict).toBe('unknown');
    expect(evaluatePackage(exact, '0.9.0').verdict).toBe('not_affected');
  });
  it('OSV records (no lists) keep OSV semantics: outside every range is not affected', () => {
    expect(evaluatePackage(pkg({ ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.0' }] }] }), '1.2.0').verdict).toBe('not_affected');
  });
});
