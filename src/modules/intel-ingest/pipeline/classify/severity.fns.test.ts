import { describe, expect, it } from 'vitest';
import { cvss2BaseScore, cvss3BaseScore, cvssFromText, roundup31 } from './cvss.fns.js';
import { severityFromCvss, severityOf, type Severity, type SeverityInput } from './severity.fns.js';

describe('cvss3BaseScore (FIRST v3.1 formulas)', () => {
  it.each([
    ['AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8],
    ['AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', 10.0],
    ['AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H', 8.8],
    ['AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H', 7.8],
    ['AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', 7.5],
    ['AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', 6.1],
    ['AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H', 8.1],
    ['AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H', 9.9],
    ['AV:L/AC:H/PR:H/UI:R/S:C/C:L/I:L/A:L', 4.7],
    ['AV:A/AC:L/PR:L/UI:N/S:C/C:L/I:N/A:N', 4.1],
    ['AV:P/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N', 1.6],
    ['AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', 0],
    ['AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:P/RL:O', 9.8],
  ])('CVSS:3.1/%s = %s', (vector, score) => {
    expect(cvss3BaseScore(`CVSS:3.1/${vector}`)).toBe(score);
    expect(cvss3BaseScore(`CVSS:3.0/${vector}`)).toBe(score);
  });

  it.each(['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/C:H/I:H/A:H', 'CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'CVSS:2.0/AV:N'])(
    'rejects %s',
    (vector) => {
      expect(cvss3BaseScore(vector)).toBeNull();
    },
  );

  it('roundup31 avoids floating-point surprises', () => {
    expect(roundup31(4.02)).toBe(4.1);
    expect(roundup31(4.0)).toBe(4.0);
    expect(roundup31(4.000001)).toBe(4.0);
  });
});

describe('cvss2BaseScore', () => {
  it.each([
    ['AV:N/AC:L/Au:N/C:P/I:P/A:P', 7.5],
    ['AV:N/AC:L/Au:N/C:C/I:C/A:C', 10.0],
    ['AV:N/AC:M/Au:N/C:N/I:P/A:N', 4.3],
    ['(AV:L/AC:L/Au:N/C:N/I:N/A:N)', 0],
    ['AV:N/AC:L', null],
  ])('%s = %s', (vector, score) => {
    expect(cvss2BaseScore(vector)).toBe(score);
  });
});

describe('cvssFromText', () => {
  it.each<[string, Array<[number | null, string | null]>]>([
    ['A CVSS 9.8 flaw.', [[9.8, null]]],
    ['CVSS score of 7.5 out of 10.', [[7.5, null]]],
    ['CVSS 3.1 base score 8.8.', [[8.8, '3.1']]],
    ['CVSSv3: 6.5', [[6.5, '3.1']]],
    ['(CVSS v3.0: 10.0)', [[10, '3.0']]],
    ['CVSS 4.0 score of 9.3', [[9.3, '4.0']]],
    ['A 9.8/10 CVSS score.', [[9.8, null]]],
    ['Vector CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H here.', [[9.8, '3.1']]],
    ['v2 AV:N/AC:L/Au:N/C:P/I:P/A:P and CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N', [[7.5, '2.0'], [null, '4.0']]],
    ['Version 1.2.3 of 10.0.0.1 and severity 9.8.', []],
    ['CVSS:3.1/AV:N/AC:L broken vector', []],
  ])('%j', (text, expected) => {
    const found = cvssFromText(text);
    expect(found.map((f) => [f.score, f.version])).toEqual(expected);
    for (const f of found) expect(text.slice(f.span.start, f.span.end)).toMatch(/CVSS|AV:/);
  });
});

describe('severityOf', () => {
  const base: SeverityInput = { cvssScores: [], knownExploited: false, text: '' };

  it.each<[string, Partial<SeverityInput>, Severity]>([
    ['no signal', {}, 'none'],
    ['CVSS 9.8', { cvssScores: [9.8] }, 'critical'],
    ['CVSS 7.0', { cvssScores: [7.0] }, 'high'],
    ['CVSS 6.9', { cvssScores: [6.9] }, 'medium'],
    ['CVSS 4.0', { cvssScores: [4.0] }, 'medium'],
    ['CVSS 3.9', { cvssScores: [3.9] }, 'low'],
    ['CVSS 0', { cvssScores: [0] }, 'none'],
    ['highest score wins', { cvssScores: [5.0, 9.1, 2.0] }, 'critical'],
    ['invalid scores ignored', { cvssScores: [Number.NaN, 11, -1] }, 'none'],
    ['score from the text', { text: 'Rated CVSS 8.1 by the vendor.' }, 'high'],
    ['vector in the text', { text: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }, 'critical'],
    ['known exploited, no score', { knownExploited: true }, 'high'],
    ['known exploited, CVSS 7.5', { knownExploited: true, cvssScores: [7.5] }, 'critical'],
    ['known exploited, CVSS 5.0', { knownExploited: true, cvssScores: [5.0] }, 'high'],
    ['exploited in the wild', { text: 'The bug is being exploited in the wild.' }, 'high'],
    ['actively exploited + CVSS 7.2', { text: 'Actively exploited.', cvssScores: [7.2] }, 'critical'],
    ['zero-day', { text: 'A zero-day in the VPN appliance.' }, 'high'],
    ['added to KEV', { text: 'CISA added it to the KEV catalog; see Known Exploited Vulnerabilities.' }, 'high'],
    ['negated exploitation', { text: 'There is no evidence it has been exploited in the wild.' }, 'none'],
    ['not actively exploited', { text: 'The flaw is not actively exploited.' }, 'none'],
    ['Zero Day Initiative is a reporter', { text: 'Reported through the Zero-Day Initiative.' }, 'none'],
    ['public PoC', { text: 'A proof-of-concept exploit is available.' }, 'medium'],
    ['ransomware language', { text: 'The ransomware gang leaked data.' }, 'medium'],
    ['data leak site', { text: 'Victims were listed on a leak site.' }, 'medium'],
    ['stated severity without CVSS', { text: 'Fortinet rated the issue critical-severity.' }, 'critical'],
    ['Microsoft "Important"', { text: 'Microsoft rated it Important.' }, 'high'],
    ['stated severity ignored when CVSS is known', { text: 'A critical severity flaw.', cvssScores: [5.3] }, 'medium'],
    ['critical infrastructure is not a severity', { text: 'Attacks on critical infrastructure.' }, 'none'],
    ['CVE id only', { text: 'See CVE-2024-1234.' }, 'low'],
    ['given CVEs', { cves: ['CVE-2024-1234'] }, 'low'],
    ['indicators', { indicatorCount: 3 }, 'low'],
    ['named threats', { namedThreats: 1 }, 'low'],
    // Malicious activity and campaigns (rules 6 and 7).
    ['infostealer phishing campaign, 8 live indicators', { text: 'An infostealer phishing campaign steals browser credentials.', indicatorCount: 8 }, 'high'],
    ['the same campaign with 4 indicators', { text: 'An infostealer phishing campaign steals browser credentials.', indicatorCount: 4 }, 'medium'],
    ['loader beaconing to its C2, 2 indicators', { text: 'The loader beacons to its C2 server.', indicatorCount: 2 }, 'medium'],
    ['malspam without a damaging capability, 30 indicators', { text: 'A malspam wave delivers a downloader.', indicatorCount: 30 }, 'medium'],
    ['named ATT&CK group, 5 indicators', { namedThreats: 2, namedActors: 1, indicatorCount: 5 }, 'high'],
    ['named malware only, 5 indicators', { namedThreats: 1, indicatorCount: 5 }, 'medium'],
    ['RAT (capitals) with 6 indicators', { text: 'A RAT was dropped.', indicatorCount: 6 }, 'high'],
    ['"rat" in prose is no RAT', { text: 'The lab rat ran.', indicatorCount: 6 }, 'low'],
    ['threat words without indicators', { text: 'Phishing awareness training for staff.' }, 'none'],
    ['a campaign tops out at high', { text: 'Ransomware operators exfiltrate data over their C2.', indicatorCount: 50, namedActors: 1, namedThreats: 3 }, 'high'],
  ])('%s', (_name, input, expected) => {
    expect(severityOf({ ...base, ...input }).severity).toBe(expected);
  });

  it('explains itself', () => {
    const r = severityOf({ cvssScores: [7.5], knownExploited: true, text: 'Ransomware operators used it. See CVE-2024-1234.' });
    expect(r).toEqual({
      severity: 'critical',
      cvss: 7.5,
      reasons: ['CVSS 7.5 → high', 'known exploited → critical', 'impact language ("Ransomware")', 'CVE referenced'],
    });
    expect(severityOf(base).reasons).toEqual(['no severity signal']);
  });

  it.each([
    [10, 'critical'],
    [9, 'critical'],
    [8.9, 'high'],
    [0.1, 'low'],
  ] as const)('severityFromCvss(%s) = %s', (score, expected) => {
    expect(severityFromCvss(score)).toBe(expected);
  });
});
