import { describe, expect, it } from 'vitest';
import { isDefangedValue, parseTypeFilter } from './indicator-types.fns.js';
import { indicatorGroupOf } from '../indicator-vocabulary.js';

describe('parseTypeFilter', () => {
  it('expands aliases and comma lists, case-insensitively, without duplicates', () => {
    expect(parseTypeFilter('ip')).toEqual({ types: ['ipv4', 'ipv6'] });
    expect(parseTypeFilter('IPv4, domain,ipv4')).toEqual({ types: ['ipv4', 'domain'] });
    expect(parseTypeFilter('hash,ip')).toEqual({ types: ['md5', 'sha1', 'sha256', 'sha512', 'ssdeep', 'ipv4', 'ipv6'] });
    expect(parseTypeFilter('registry-key')).toEqual({ types: ['registry-key'] });
  });

  it('names what it does not know', () => {
    expect(parseTypeFilter('bogus')).toEqual({ unknown: ['bogus'] });
    expect(parseTypeFilter('ipv4,Bogus,cve')).toEqual({ unknown: ['bogus', 'cve'] });
    expect(parseTypeFilter(' , ')).toEqual({ unknown: [' , '] });
    expect(parseTypeFilter('constructor,__proto__,toString')).toEqual({ unknown: ['constructor', '__proto__', 'tostring'] });
  });
});

describe('isDefangedValue', () => {
  it('is true when the extractor\'s refang changes the value', () => {
    expect(isDefangedValue('url', 'hxxp://45.142.212[.]100:8080/gate.php')).toBe(true);
    expect(isDefangedValue('domain', 'evil(dot)com')).toBe(true);
    expect(isDefangedValue('email', 'a[at]evil.com')).toBe(true);
    expect(isDefangedValue('domain', 'Evil.COM')).toBe(false);
  });

  it('reads a backslash before a dot in a path as a separator, not a defang', () => {
    expect(isDefangedValue('registry-key', 'HKCU\\Software\\.NET')).toBe(false);
    expect(isDefangedValue('filename', 'C:\\Users\\x\\.cache')).toBe(false);
  });
});

describe('indicatorGroupOf (the one grouping of types, read by the filter aliases and hunt)', () => {
  it('groups every hash, ssdeep included, and both IP versions; other types are their own group', () => {
    expect(['md5', 'sha1', 'sha256', 'sha512', 'ssdeep'].map(indicatorGroupOf)).toEqual(['hash', 'hash', 'hash', 'hash', 'hash']);
    expect(['ipv4', 'ipv6', 'domain', 'constructor'].map(indicatorGroupOf)).toEqual(['ip', 'ip', 'domain', 'constructor']);
    // The filter alias of a group is exactly its members.
    expect(parseTypeFilter('hash')).toEqual({ types: ['md5', 'sha1', 'sha256', 'sha512', 'ssdeep'].filter((t) => indicatorGroupOf(t) === 'hash') });
  });
});
