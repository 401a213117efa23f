import { describe, expect, it } from 'vitest';
import { compareDebian, compareIn, compareMaven, compareRpm, rpmvercmp, schemeOf } from './ecosystems.fns.js';

/** Every adjacent pair of an ascending list is ascending, and every element equals itself. */
function ascending(cmp: (a: string, b: string) => number, list: string[]) {
  for (let i = 0; i < list.length; i++) {
    expect(cmp(list[i]!, list[i]!), `${list[i]} = itself`).toBe(0);
    for (let j = i + 1; j < list.length; j++) {
      expect(cmp(list[i]!, list[j]!), `${list[i]} < ${list[j]}`).toBeLessThan(0);
      expect(cmp(list[j]!, list[i]!), `${list[j]} > ${list[i]}`).toBeGreaterThan(0);
    }
  }
}

describe('Maven ComparableVersion (upstream ComparableVersionTest vectors)', () => {
  it('orders qualifiers', () => {
    ascending(compareMaven, ['1-alpha2snapshot', '1-alpha2', '1-alpha-123', '1-beta-2', '1-beta123', '1-m2', '1-m11', '1-rc', '1-cr2', '1-rc123', '1-SNAPSHOT', '1', '1-sp', '1-sp2', '1-sp123', '1-abc', '1-def', '1-pom-1', '1-1-snapshot', '1-1', '1-2', '1-123']);
  });
  it('orders numbers', () => {
    ascending(compareMaven, ['2.0', '2-1', '2.0.a', '2.0.0.a', '2.0.2', '2.0.123', '2.1.0', '2.1-a', '2.1b', '2.1-c', '2.1-1', '2.1.0.1', '2.2', '2.123', '11.a2', '11.a11', '11.b2', '11.b11', '11.m2', '11.m11', '11', '11.a', '11b', '11c', '11m']);
  });
  it('treats equal spellings as equal', () => {
    for (const [a, b] of [['1', '1.0'], ['1', '1.0.0'], ['1', '1-0'], ['1.0', '1.0-0'], ['1a', '1-a'], ['1a', '1.0.0-a'], ['1x', '1-x'], ['1ga', '1'], ['1release', '1'], ['1final', '1'], ['1cr', '1rc'], ['1a1', '1-alpha-1'], ['1b2', '1-beta-2'], ['1m3', '1-milestone-3'], ['1X', '1x'], ['1A', '1a']]) {
      expect(compareMaven(a!, b!), `${a} = ${b}`).toBe(0);
    }
  });
  it('orders Log4j and Struts releases', () => {
    ascending(compareMaven, ['2.0-beta9', '2.0-rc1', '2.0', '2.14.1', '2.15.0', '2.17.1']);
    ascending(compareMaven, ['6.3.0', '6.3.0.1', '6.3.0.2', '6.4.0']);
  });
});

describe('Debian dpkg (verrevcmp)', () => {
  it('orders ~ before the empty string before letters before other characters', () => {
    ascending(compareDebian, ['1.0~~', '1.0~~a', '1.0~', '1.0', '1.0a', '1.0+b1']);
  });
  it('compares epochs, upstream and revision', () => {
    expect(compareDebian('0:1.0-1', '1.0-1')).toBe(0);
    expect(compareDebian('1:0.1', '2.0')).toBeGreaterThan(0);
    expect(compareDebian('1.0-1', '1.0-2')).toBeLessThan(0);
    expect(compareDebian('0:0-0', '0:0-00')).toBe(0);
    expect(compareDebian('1.2.3~rc1-1', '1.2.3-1')).toBeLessThan(0);
    expect(compareDebian('1:9.6p1-3ubuntu13.5', '1:9.6p1-3ubuntu13.4')).toBeGreaterThan(0);
    expect(compareDebian('1:8.9p1-3ubuntu0.10', '1:9.6p1-3')).toBeLessThan(0);
  });
});

describe('RPM rpmvercmp (upstream tests/rpmvercmp.at)', () => {
  const cases: Array<[string, string, number]> = [
    ['1.0', '1.0', 0], ['1.0', '2.0', -1], ['2.0.1', '2.0.1', 0], ['2.0', '2.0.1', -1], ['2.0.1a', '2.0.1', 1],
    ['5.5p1', '5.5p1', 0], ['5.5p1', '5.5p2', -1], ['5.5p10', '5.5p1', 1], ['10xyz', '10.1xyz', -1], ['xyz10', 'xyz10.1', -1],
    ['xyz.4', '8', -1], ['xyz.4', '2', -1], ['5.5p2', '5.6p1', -1], ['5.6p1', '6.5p1', -1], ['6.0.rc1', '6.0', 1],
    ['10b2', '10a1', 1], ['10a2', '10b2', -1], ['1.0aa', '1.0a', 1], ['10.0001', '10.1', 0], ['10.0001', '10.0039', -1],
    ['4.999.9', '5.0', -1], ['20101121', '20101122', -1], ['2_0', '2_0', 0], ['2.0', '2_0', 0], ['a', 'a', 0], ['a+', 'a_', 0], ['+', '_', 0],
    ['1.0~rc1', '1.0', -1], ['1.0~rc1', '1.0~rc2', -1], ['1.0~rc1~git123', '1.0~rc1', -1], ['1.0^', '1.0', 1], ['1.0^git1', '1.0', 1],
    ['1.0^git1', '1.0^git2', -1], ['1.0^git1', '1.01', -1], ['1.0^20160101', '1.0.1', -1], ['1.0~rc1^git1', '1.0~rc1', 1], ['1.0^git1~pre', '1.0^git1', -1],
  ];
  it.each(cases)('rpmvercmp(%s, %s) = %i', (a, b, want) => {
    expect(Math.sign(rpmvercmp(a, b)) + 0).toBe(want + 0);
    expect(Math.sign(rpmvercmp(b, a)) + 0).toBe(-want + 0);
  });
  it('compares epoch:version-release', () => {
    expect(compareRpm('1:1.0-1', '2.0-1')).toBeGreaterThan(0);
    expect(compareRpm('8.7p1-38.el9', '8.7p1-38.el9_4.1')).toBeLessThan(0);
  });
});

describe('npm, PyPI, Go and the generic rule', () => {
  it('npm: semver with pre-releases', () => {
    ascending((a, b) => compareIn('npm', a, b), ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-beta', '1.0.0-rc.1', '1.0.0', '1.0.1', '1.10.0']);
  });
  it('PyPI: PEP 440', () => {
    ascending((a, b) => compareIn('pypi', a, b), ['1.0.dev0', '1.0a1', '1.0b1', '1.0rc1', '1.0', '1.0.post1', '1.1']);
    expect(compareIn('pypi', '1.0', '1.0.0')).toBe(0);
    expect(compareIn('pypi', '2.31.0', '2.4.0')).toBeGreaterThan(0);
  });
  it('Go: semver with v and pseudo-versions', () => {
    ascending((a, b) => compareIn('go', a, b), ['v0.0.0-20191109021931-daa7c04131f5', 'v0.1.0', 'v1.2.3', 'v1.10.0', 'v2.0.0+incompatible']);
  });
  it('generic (CPE and appliance versions): OpenSSH patch levels and Jenkins LTS', () => {
    ascending((a, b) => compareIn('generic', a, b), ['8.9p1', '9.3p1', '9.8', '9.8p1']);
    ascending((a, b) => compareIn('generic', a, b), ['2.426.1', '2.426.3', '2.440']);
  });
  it('knows the schemes of OSV ecosystems and purl types', () => {
    expect(['npm', 'PyPI', 'Maven', 'Go', 'golang', 'Debian:12', 'Ubuntu:22.04', 'Red Hat', 'rpm', 'crates.io'].map(schemeOf)).toEqual(['npm', 'pypi', 'maven', 'go', 'go', 'deb', 'deb', 'rpm', 'rpm', 'generic']);
  });
});
