import { describe, expect, it } from 'vitest';
import { compilePhrases, findPhrases, separatorKey, tokenize, type PhraseSpec } from './phrase-matcher.fns.js';

function find(text: string, specs: Array<PhraseSpec<string>>): Array<[string, string[]]> {
  return findPhrases(text, tokenize(text), compilePhrases(specs)).map((m) => {
    expect(text.slice(m.start, m.end)).toBe(m.text);
    return [m.text, [...m.payloads]];
  });
}

const spec = (phrase: string, caseSensitive = false, payload = phrase, suffixAnyOf?: string[]): PhraseSpec<string> => ({
  phrase,
  caseSensitive,
  payload,
  ...(suffixAnyOf ? { suffixAnyOf } : {}),
});

describe('tokenize / separatorKey', () => {
  it('splits on anything but letters and digits, keeping exact spans', () => {
    const text = 'APT28’s X-Agent, Doppelgänging!';
    const tokens = tokenize(text);
    expect(tokens.map((t) => t.text)).toEqual(['APT28', 's', 'X', 'Agent', 'Doppelgänging']);
    for (const t of tokens) expect(text.slice(t.start, t.end)).toBe(t.text);
  });

  it('gives the tokens of the regex [\\p{L}\\p{N}]+ on any text (surrogate pairs, lone surrogates, marks)', () => {
    const reference = (text: string) => [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[0], lower: m[0].toLowerCase() }));
    const pool = ['a', 'Z', '9', ' ', '-', '.', '_', 'é', 'ß', 'İ', 'ǅ', '\u0301', '\u00a0', '中', '٣', 'Ⅻ', '\ud83d\ude00', '\ud835\udc9c', '\ud800', '\udc00', '’'];
    let seed = 5;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let i = 0; i < 3_000; i++) {
      const text = Array.from({ length: Math.floor(rnd() * 24) }, () => pool[Math.floor(rnd() * pool.length)]).join('');
      expect(tokenize(text), JSON.stringify(text)).toEqual(reference(text));
    }
  });

  it.each([
    [' ', ' '],
    ['-', ' '],
    [' – ', ' '],
    [': ', ':'],
    ['.', '.'],
    ['. ', '. '],
    ['/', '/'],
    ['     ', null],
  ])('separatorKey(%j) = %j', (sep, key) => {
    expect(separatorKey(sep)).toBe(key);
  });
});

describe('findPhrases', () => {
  it.each<[string, string, Array<PhraseSpec<string>>, Array<[string, string[]]>]>([
    ['case-insensitive multi-word', 'Then fancy bear struck.', [spec('Fancy Bear')], [['fancy bear', ['Fancy Bear']]]],
    ['hyphen equals space', 'X Agent and X-Agent and XAgent', [spec('X-Agent')], [['X Agent', ['X-Agent']], ['X-Agent', ['X-Agent']]]],
    ['colon ignores spaces', 'Use Command: PowerShell or Command :PowerShell', [spec('Command: PowerShell')], [['Command: PowerShell', ['Command: PowerShell']], ['Command :PowerShell', ['Command: PowerShell']]]],
    ['case-sensitive', 'SPLM and splm', [spec('SPLM', true)], [['SPLM', ['SPLM']]]],
    ['whole words only', 'APT280 and xAPT28 and APT28', [spec('APT28')], [['APT28', ['APT28']]]],
    ['longest match wins', 'Command and Scripting Interpreter: PowerShell', [spec('Command and Scripting Interpreter'), spec('Command and Scripting Interpreter: PowerShell'), spec('PowerShell')], [['Command and Scripting Interpreter: PowerShell', ['Command and Scripting Interpreter: PowerShell']]]],
    ['same phrase, several payloads', 'Carbanak', [spec('Carbanak', false, 'group'), spec('Carbanak', false, 'malware')], [['Carbanak', ['group', 'malware']]]],
    ['suffix required', 'Silence is golden. The Silence group struck.', [spec('Silence', true, 'Silence', ['group'])], [['Silence', ['Silence']]]],
    ['file extension is not a name', 'ran script.ps1 then PS1', [spec('PS1', true)], [['PS1', ['PS1']]]],
    ['domain is not a name', 'sofacy.example.com and Sofacy', [spec('Sofacy')], [['Sofacy', ['Sofacy']]]],
    ['URL path is not a name', 'see https://x.org/apt28/report and APT28/Fancy Bear', [spec('APT28'), spec('Fancy Bear')], [['APT28', ['APT28']], ['Fancy Bear', ['Fancy Bear']]]],
    ['a dot separator must be exact', 'net.exe but not net. exe', [spec('net.exe')], [['net.exe', ['net.exe']]]],
    ['hyphenated compound still matches', 'APT28-linked activity', [spec('APT28')], [['APT28', ['APT28']]]],
  ])('%s', (_name, text, specs, expected) => {
    expect(find(text, specs)).toEqual(expected);
  });

  it('ignores phrases without tokens', () => {
    expect(compilePhrases([spec('...'), spec('')]).size).toBe(0);
  });
});
