import { describe, expect, it } from 'vitest';
import { csvCell, csvRow } from './csv.js';

describe('the CSV cell rule (OWASP CSV injection, RFC 4180)', () => {
  it('quotes and doubles quotes', () => {
    expect(csvCell('a,"b"')).toBe('"a,""b"""');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(csvCell(null)).toBe('');
  });

  it('prefixes every text cell starting with =, +, -, @, tab or CR, numeric-looking text included', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvCell("-1+cmd|' /C calc'!A0")).toBe("'-1+cmd|' /C calc'!A0");
    expect(csvCell('-1')).toBe("'-1");
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\t=1')).toBe("'\t=1");
    expect(csvCell('\r=1')).toBe('"\'\r=1"');
    expect(csvCell('1-2')).toBe('1-2');
  });

  it('writes numbers as numbers', () => {
    expect(csvCell(-1)).toBe('-1');
    expect(csvCell(0.5)).toBe('0.5');
    expect(csvRow(['a', -1, null])).toBe("a,-1,\r\n");
    expect(csvRow(['a', 'b'], '\n')).toBe('a,b\n');
  });
});
