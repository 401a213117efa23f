import { describe, expect, it } from 'vitest';
import { searchTerms } from './search-terms.fns.js';

describe('searchTerms', () => {
  it('refangs the term and offers the normalized indicator values of a single token', () => {
    expect(searchTerms('evil[.]com')).toEqual({ refanged: 'evil.com', indicatorValues: ['evil.com'] });
    expect(searchTerms('1.2.3.4')).toEqual({ refanged: '1.2.3.4', indicatorValues: ['1.2.3.4'] });
    expect(searchTerms('HXXP://Evil[.]COM/Gate.php').indicatorValues).toEqual(['http://Evil.COM/Gate.php', 'http://evil.com/gate.php', 'http://evil.com/Gate.php']);
  });

  it('leaves word searches and websearch operators to the full-text search', () => {
    expect(searchTerms('lockbit ransomware')).toEqual({ refanged: 'lockbit ransomware', indicatorValues: [] });
    expect(searchTerms('"evil.com"').indicatorValues).toEqual([]);
    expect(searchTerms('-evil.com').indicatorValues).toEqual([]);
  });
});
