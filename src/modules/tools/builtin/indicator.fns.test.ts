import { describe, expect, it } from 'vitest';
import { parseIndicator } from './indicator.fns.js';

const valueOf = (raw: string) => parseIndicator(raw).value;

describe('parseIndicator', () => {
  it('refangs and lower-cases hosts', () => {
    expect(parseIndicator(' Evil-Example[.]NET ')).toEqual({ value: 'evil-example.net', type: 'domain' });
    expect(valueOf('c2-0(dot)evil-example(dot)net')).toBe('c2-0.evil-example.net');
  });

  it('refangs URLs', () => {
    expect(valueOf('hxxps://evil-example[.]net/payload.bin')).toBe('https://evil-example.net/payload.bin');
  });

  it('keeps reserved addresses a source asserted (documentation ranges)', () => {
    expect(parseIndicator('203.0.113[.]5')).toEqual({ value: '203.0.113.5', type: 'ipv4' });
  });

  it('lower-cases hashes, also one too regular for the extractor', () => {
    expect(parseIndicator('AB'.repeat(32))).toEqual({ value: 'ab'.repeat(32), type: 'sha256' });
  });

  it('gives the one stored form of intel\'s normalizeIndicator, and leaves what it does not recognise as written', () => {
    expect(valueOf('C:\\Users\\Public\\X.exe')).toBe('c:\\users\\public\\x.exe');
    expect(valueOf('2001:DB8:0:0::1')).toBe('2001:db8::1');
    expect(parseIndicator('Some Mutex Name')).toEqual({ value: 'Some Mutex Name', type: null });
    expect(valueOf('')).toBe('');
  });
});
