import { describe, expect, it } from 'vitest';
import { ABSTRACT_MAX, cleanSentence, summarize, SUMMARY_MAX, TLDR_MAX, truncate } from './summarize.fns.js';

const ARTICLE = `Overview
APT28 (a.k.a. Fancy Bear) targeted the U.S. energy sector, e.g. utilities, with phishing lures. The C2 at 1.2.3.4 and evil[.]com was active from Jan. 5 to Feb. 10.

The actors gained initial access via spearphishing attachments. They moved laterally using stolen credentials. Approx. 5 GB were exfiltrated to hxxps://bad[.]example[.]org/upload. Share this article.`;

/** Each sentence of an extractive output appears in the source (whitespace collapsed). */
function expectExtractive(source: string, output: string): void {
  const flat = cleanSentence(source);
  for (const part of output.split(/(?<=[.!?])\s+(?=[A-Z])/)) expect(flat).toContain(part.replace(/…$/, ''));
}

describe('summarize', () => {
  const s = summarize('APT28 phishing campaign targets energy sector', ARTICLE);

  it('tldr is the first informative sentence', () => {
    expect(s.tldr).toBe('APT28 (a.k.a. Fancy Bear) targeted the U.S. energy sector, e.g. utilities, with phishing lures.');
  });

  it('summary is up to three source sentences in text order', () => {
    expect(s.summary.length).toBeLessThanOrEqual(SUMMARY_MAX);
    expect(s.summary.startsWith(s.tldr)).toBe(true);
    expectExtractive(ARTICLE, s.summary);
    expect(s.summary).not.toContain('Share this');
    expect(s.summary).not.toMatch(/^Overview/);
  });

  it('abstract is the first paragraph without its heading', () => {
    expect(s.abstract).toBe(
      'APT28 (a.k.a. Fancy Bear) targeted the U.S. energy sector, e.g. utilities, with phishing lures. The C2 at 1.2.3.4 and evil[.]com was active from Jan. 5 to Feb. 10.',
    );
  });

  it('attackPath falls back to attack-stage sentences', () => {
    expect(s.attackPath).toEqual([
      'The actors gained initial access via spearphishing attachments.',
      'They moved laterally using stolen credentials.',
      'Approx. 5 GB were exfiltrated to hxxps://bad[.]example[.]org/upload.',
    ]);
  });

  it('attackPath uses the kill chain when classification found techniques', () => {
    expect(summarize('t', ARTICLE, { killChain: ['exfiltration', 'initial-access', 'lateral-movement'] }).attackPath).toEqual([
      'Initial Access',
      'Lateral Movement',
      'Exfiltration',
    ]);
  });

  it.each([
    ['empty text uses the title', 'Fortinet patches FortiOS', '', { summary: 'Fortinet patches FortiOS', tldr: 'Fortinet patches FortiOS', abstract: '', attackPath: [] }],
    ['nothing at all', '', '', { summary: '', tldr: '', abstract: '', attackPath: [] }],
    ['only boilerplate', 'T', 'Click here. Share this.', { summary: 'T', tldr: 'T', abstract: '', attackPath: [] }],
  ])('%s', (_name, title, text, expected) => {
    expect(summarize(title, text)).toEqual(expected);
  });

  it('respects the length limits', () => {
    const long = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} describes the ransomware campaign in considerable detail for readers.`).join(' ');
    const r = summarize('ransomware campaign', long);
    expect(r.tldr.length).toBeLessThanOrEqual(TLDR_MAX);
    expect(r.summary.length).toBeLessThanOrEqual(SUMMARY_MAX);
    expect(r.abstract.length).toBeLessThanOrEqual(ABSTRACT_MAX);
    expect(r.abstract.endsWith('.')).toBe(true);
    const giant = `${'word '.repeat(400)}end.`;
    const g = summarize('', giant);
    expect(g.tldr.length).toBeLessThanOrEqual(TLDR_MAX);
    expect(g.tldr.endsWith('…')).toBe(true);
    expect(g.summary.length).toBeLessThanOrEqual(SUMMARY_MAX);
    expect(g.abstract.length).toBeLessThanOrEqual(ABSTRACT_MAX);
  });

  it('prefers sentences about the title and security keywords over later filler', () => {
    const text = [
      'The company published its quarterly newsletter today for all of its readers.',
      'It includes updates on office events and team changes across many regions.',
      'Weather was discussed at length during the meeting with the local staff.',
      'Separately, attackers exploited CVE-2024-3400 in PAN-OS firewalls to deploy a backdoor.',
    ].join(' ');
    const r = summarize('PAN-OS CVE-2024-3400 exploited', text);
    expect(r.summary).toContain('CVE-2024-3400');
  });
});

describe('truncate / cleanSentence', () => {
  it.each([
    ['short', 10, 'short'],
    ['one two three four five', 12, 'one two…'],
    ['abcdefghijklmnop', 8, 'abcdefg…'],
  ])('truncate(%j, %i)', (s, max, expected) => {
    expect(truncate(s, max)).toBe(expected);
    expect(truncate(s, max).length).toBeLessThanOrEqual(max);
  });

  it.each([
    ['- bullet   text\n here', 'bullet text here'],
    ['2) step two', 'step two'],
    ['  plain  ', 'plain'],
  ])('cleanSentence(%j)', (s, expected) => {
    expect(cleanSentence(s)).toBe(expected);
  });
});
