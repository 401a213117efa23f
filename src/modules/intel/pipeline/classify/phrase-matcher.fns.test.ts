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
