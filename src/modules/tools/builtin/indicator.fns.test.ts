import { describe, expect, it } from 'vitest';
import { normalizeIndicatorValue } from './indicator.fns.js';

describe('normalizeIndicatorValue', () => {
  it('refangs and lower-cases hosts', () => {
    expect(normalizeIndicatorValue(' Evil-Example[.]NET ')).toBe('evil-example.net');
    expect(normalizeIndicatorValue('c2-0(dot)evil-example(dot)net')).toBe('c2-0.evil-example.net');
  });

  it('refangs URLs', () => {
    expect(normalizeIndicatorValue('hxxps://evil-example[.]net/payload.bin')).toMatch(/^https:\/\/evil-example\.net\/payload\.bin/);
  });

  it('keeps reserved addresses a source asserted (documentation ranges)', () => {
    expect(normalizeIndicatorValue('203.0.113[.]5')).toBe('203.0.113.5');
  });

  it('lower-cases hashes', () => {
    expect(normalizeIndicatorValue('AB'.repeat(32))).toBe('ab'.repeat(32));
  });

  it('leaves what it does not recognize, refanged', () => {
    expect(normalizeIndicatorValue('C:\\Users\\Public\\X.exe')).toBe('c:\\users\\public\\x.exe'); // the extractor's path form
    expect(normalizeIndicatorValue('Some Mutex Name')).toBe('Some Mutex Name');
    expect(normalizeIndicatorValue('')).toBe('');
  });
});
