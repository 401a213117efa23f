import { describe, expect, it } from 'vitest';
import { defang, listLine } from './export.fns.js';
import { refang } from '../intel/index.js';

describe('export functions', () => {
  it('defangs hosts, addresses, URLs and mail in the style Rampart refangs', () => {
    const cases: Array<[string, string, string]> = [
      ['ipv4', '185.220.101.47', '185.220.101[.]47'],
      ['domain', 'secure-docs-portal.com', 'secure-docs-portal[.]com'],
      ['url', 'https://secure-docs-portal.com/a.php?x=1.2', 'hxxps://secure-docs-portal[.]com/a.php?x=1.2'],
      ['url', 'HTTP://A.EXAMPLE/', 'HXXP://A[.]EXAMPLE/'],
      ['email', 'bob@evil.example', 'bob@evil[.]example'],
      ['ipv6', '2001:db8::1', '2001[:]db8::1'],
      ['sha256', 'ab'.repeat(32), 'ab'.repeat(32)],
    ];
    for (const [type, value, expected] of cases) {
      expect(defang(type, value)).toBe(expected);
      if (type !== 'ipv6') expect(refang(expected).toLowerCase()).toBe(value.toLowerCase());
    }
  });

  it('writes block-list lines: /32 and /128 dropped, wider networks and line breaks left out', () => {
    expect(listLine('ipv4', '198.51.100.9/32', false)).toBe('198.51.100.9');
    expect(listLine('ipv4', '198.51.100.0/24', false)).toBeNull();
    expect(listLine('ipv6', '2001:db8::1/128', true)).toBe('2001[:]db8::1');
    expect(listLine('url', 'https://a.example/\nb', false)).toBeNull();
    expect(listLine('domain', 'a.example', false)).toBe('a.example');
  });
});
