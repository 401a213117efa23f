import { describe, expect, it } from 'vitest';
import { isExactPassage, mergePassages, passageAround, passageRef, splitSentences } from './sentences.fns.js';

function texts(text: string): string[] {
  return splitSentences(text).map((s) => s.text);
}

describe('splitSentences', () => {
  it.each([
    ['plain sentences', 'One two three. Four five six! Seven eight?', ['One two three.', 'Four five six!', 'Seven eight?']],
    ['IPv4 addresses', 'The C2 was 1.2.3.4 on port 443. Next one.', ['The C2 was 1.2.3.4 on port 443.', 'Next one.']],
    ['IP at the end of a sentence', 'Traffic went to 10.0.0.1. Then it stopped.', ['Traffic went to 10.0.0.1.', 'Then it stopped.']],
    ['defanged domains', 'Beacon to evil[.]com and bad(.)org every hour. Done.', ['Beacon to evil[.]com and bad(.)org every hour.', 'Done.']],
    ['defanged URL', 'Payload at hxxps://x[.]example[.]org/a.exe was fetched. Done.', ['Payload at hxxps://x[.]example[.]org/a.exe was fetched.', 'Done.']],
    ['decimals and versions', 'CVSS 9.8 affects 7.0.12 builds. Patch now.', ['CVSS 9.8 affects 7.0.12 builds.', 'Patch now.']],
    ['abbreviations', 'Attacks hit the U.S. Army, e.g. bases. Mr. Smith et al. agreed. Acme Inc. said so.', ['Attacks hit the U.S. Army, e.g. bases.', 'Mr. Smith et al. agreed.', 'Acme Inc. said so.']],
    ['initials', 'Report by J. Doe was published. Next.', ['Report by J. Doe was published.', 'Next.']],
    ['lower-case after a period does not split', 'About approx. twenty hosts. Next.', ['About approx. twenty hosts.', 'Next.']],
    ['ellipsis then capital', 'Wait... Then it ran.', ['Wait...', 'Then it ran.']],
    ['closing quote after the period', 'He said "stop." Then it ended.', ['He said "stop."', 'Then it ended.']],
    ['blank lines are boundaries', 'First paragraph without stop\n\nSecond paragraph', ['First paragraph without stop', 'Second paragraph']],
    ['headings (short lines)', 'Overview\nThe actor used a loader.', ['Overview', 'The actor used a loader.']],
    ['bullets', 'Indicators:\n- 1.2.3.4\n- evil[.]com', ['Indicators:', '- 1.2.3.4', '- evil[.]com']],
    ['numbered list markers do not split', '1. First step here\n2. Second step here', ['1. First step here', '2. Second step here']],
    [
      'wrapped long lines are joined',
      'This is a long wrapped line of a paragraph that goes on for more than sixty chars\nand continues here.',
      ['This is a long wrapped line of a paragraph that goes on for more than sixty chars\nand continues here.'],
    ],
    ['empty and whitespace', '   \n\n  ', []],
  ])('%s', (_name, text, expected) => {
    expect(texts(text)).toEqual(expected);
  });

  it('spans are exact', () => {
    const text = '  Lead sentence here.  Second one 1.2.3.4!\n\n- bullet  ';
    for (const s of splitSentences(text)) expect(text.slice(s.start, s.end)).toBe(s.text);
  });
});

describe('passageAround', () => {
  const text = 'Intro sentence. The actor used PowerShell for execution. Outro sentence.';
  const sentences = splitSentences(text);

  it('returns the sentence containing the evidence, exactly', () => {
    const start = text.indexOf('PowerShell');
    const p = passageAround(text, sentences, { start, end: start + 'PowerShell'.length });
    expect(p.text).toBe('The actor used PowerShell for execution.');
    expect(text.slice(p.charSpan.start, p.charSpan.end)).toBe(p.text);
    expect(isExactPassage(text, p)).toBe(true);
  });

  it('covers evidence spanning two sentences', () => {
    const start = text.indexOf('execution');
    const end = text.indexOf('Outro') + 5;
    const p = passageAround(text, sentences, { start, end });
    expect(p.text).toBe('The actor used PowerShell for execution. Outro sentence.');
  });

  it('windows a long sentence around the evidence at word boundaries', () => {
    const filler = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    const long = `${filler} EVIDENCE ${filler}.`;
    const start = long.indexOf('EVIDENCE');
    const p = passageAround(long, splitSentences(long), { start, end: start + 8 }, 120);
    expect(p.text.length).toBeLessThanOrEqual(120);
    expect(p.text).toContain('EVIDENCE');
    expect(long.slice(p.charSpan.start, p.charSpan.end)).toBe(p.text);
    expect(p.text).toMatch(/^word\d+ .* word\d+$/);
  });

  it('windows evidence near the start of a long sentence', () => {
    const long = `EVIDENCE ${'x '.repeat(400)}end.`;
    const p = passageAround(long, splitSentences(long), { start: 0, end: 8 }, 100);
    expect(p.charSpan.start).toBe(0);
    expect(p.text.length).toBeLessThanOrEqual(100);
    expect(isExactPassage(long, p)).toBe(true);
  });

  it('never returns less than the evidence itself', () => {
    const long = 'a'.repeat(1000);
    const p = passageAround(long, splitSentences(long), { start: 100, end: 900 }, 50);
    expect(p.charSpan).toEqual({ start: 100, end: 900 });
  });
});

describe('passage refs and merging', () => {
  it('refs are derived from spans', () => {
    expect(passageRef({ start: 3, end: 10 })).toBe('passage:3-10');
  });

  it('mergePassages dedupes by span and sorts by position', () => {
    const a = { text: 'b', charSpan: { start: 5, end: 6 } };
    const b = { text: 'a', charSpan: { start: 0, end: 1 } };
    expect(mergePassages([a, b], [{ ...a }])).toEqual([b, a]);
  });

  it('isExactPassage rejects a wrong span', () => {
    expect(isExactPassage('hello world', { text: 'world', charSpan: { start: 5, end: 10 } })).toBe(false);
    expect(isExactPassage('hello world', { text: 'world', charSpan: { start: 6, end: 11 } })).toBe(true);
  });
});
