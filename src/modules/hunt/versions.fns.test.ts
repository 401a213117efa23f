import { describe, expect, it } from 'vitest';
import { compareVersions, inRange, versionVerdict } from './versions.fns.js';

describe('versions', () => {
  it('compares numerically, with pre-releases before releases and patch letters after', () => {
    expect(compareVersions('2.14.1', '2.15.0')).toBeLessThan(0);
    expect(compareVersions('2.10', '2.9')).toBeGreaterThan(0);
    expect(compareVersions('2.0-beta9', '2.0')).toBeLessThan(0);
    expect(compareVersions('2.0', '2.0.0')).toBe(0);
    expect(compareVersions('1.1.1w', '1.1.1')).toBeGreaterThan(0);
    expect(compareVersions('9.1R14', '9.1R3')).toBeGreaterThan(0);
  });

  it('reads the intel range notation', () => {
    expect(inRange('2.14.1', '>=2.0 <=2.14.1')).toBe(true);
    expect(inRange('2.15.0', '<2.15.0')).toBe(false);
    expect(inRange('7.0.3', '7.x')).toBe(true);
    expect(inRange('8.0.1', '7.x')).toBe(false);
    expect(inRange('7.0.12', '7.0.12')).toBe(true);
    expect(inRange('2.3', '>=2.3')).toBe(true);
  });

  it('gives inside, outside or unknown', () => {
    expect(versionVerdict('2.14.1', ['>=2.0-beta9 <=2.14.1'])).toBe('inside');
    expect(versionVerdict('2.17.1', ['>=2.0-beta9 <=2.14.1'])).toBe('outside');
    expect(versionVerdict(null, ['<2.15.0'])).toBe('unknown');
    expect(versionVerdict('2.14.1', [])).toBe('unknown');
  });
});
