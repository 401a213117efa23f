import { describe, expect, it } from 'vitest';
import { combineMatches, matchProse, productsInText, type AdvisoryProduct, type InventorySoftware } from './matching.fns.js';
import { scoreRelevancy } from './relevancy.fns.js';
import { bandOf } from './exposure.fns.js';
import { DEFAULT_ALERT_SETTINGS, huntQualification } from './hunt-alerts.js';

const sw = (identifier: string, product: string, version: string | null, extra: Partial<InventorySoftware> = {}): InventorySoftware => ({
  assetId: identifier, identifier, kind: 'host', platform: 'linux', internetFacing: false, criticality: 'medium', vendor: '', product, version, productKey: product.toLowerCase(), purl: null, cpe: null, ...extra,
});
const now = new Date('2026-11-24T00:00:00Z');
const advisory = [{ vendor: 'OpenSSH', product: 'OpenSSH', versions: ['>=8.5p1 <9.8p1'], via: 'advisory' as const }];
const matchSoftware = (a: AdvisoryProduct[], s: InventorySoftware[]) => combineMatches([], matchProse(a, s, 'item-1'));

describe('relevancy', () => {
  it('is highest inside a range, lower for an unknown version, low outside, zero without a product', () => {
    const score = (version: string | null) => scoreRelevancy({ canonicalKey: 'CVE-2024-6387', matches: matchSoftware(advisory, [sw('h', 'openssh', version)]), knownExploited: false, newestReportAt: null, now }).score;
    expect(score('8.9p1')).toBe(60);
    expect(score(null)).toBe(35);
    expect(score('9.8p1')).toBe(10);
    expect(scoreRelevancy({ canonicalKey: 'X', matches: [], knownExploited: false, newestReportAt: null, now })).toEqual({ score: 0, headline: 'Nothing the organization runs is affected', explanation: ['The advisories for X name no product the organization runs.'] });
  });

  it('is raised by exploitation, internet-facing and critical assets and recency, and is deterministic', () => {
    const input = { canonicalKey: 'CVE-2024-6387', matches: matchSoftware(advisory, [sw('edge', 'openssh', '9.1p1', { internetFacing: true, criticality: 'critical' })]), knownExploited: true, newestReportAt: new Date('2026-11-20T00:00:00Z'), now };
    const a = scoreRelevancy(input);
    expect(a.score).toBe(100);
    expect(a.explanation).toEqual([
      'edge runs openssh 9.1p1, inside the affected range >=8.5p1 <9.8p1.',
      'CVE-2024-6387 is reported exploited in the wild.',
      'Internet-facing and possibly affected: edge.',
      'High or critical assets possibly affected: edge.',
      'Reported recently (2026-11-20).',
    ]);
    expect(scoreRelevancy(input)).toEqual(a);
  });

  it('finds the organization\'s products in prose with the versions written after them', () => {
    expect(productsInText('Flaws in Contoso Ledger 3.2 and earlier allow SQL injection.', new Set(['contoso ledger', 'server']))).toEqual([{ vendor: '', product: 'Contoso Ledger', versions: ['<=3.2'], via: 'text', fixed: [] }]);
    expect(productsInText('The server crashed.', new Set(['server']))).toEqual([]);
  });
});

describe('bands and hunt alert qualification', () => {
  it('cuts bands at 1, 40, 60 and 80', () => {
    expect([0, 1, 39, 40, 59, 60, 79, 80, 100].map(bandOf)).toEqual([null, 'low', 'low', 'medium', 'medium', 'high', 'high', 'critical', 'critical']);
  });
  it('qualifies at or above the band, or below it on a compromise signal when allowed', () => {
    expect(huntQualification({ ...DEFAULT_ALERT_SETTINGS, minimumExposureBand: 'high', alertOnCompromiseBelowThreshold: false }, 60, 'vulnerable_software_present')).toBe('exposure_band');
    expect(huntQualification({ ...DEFAULT_ALERT_SETTINGS, minimumExposureBand: 'high', alertOnCompromiseBelowThreshold: false }, 59, 'vulnerable_software_present')).toBeNull();
    expect(huntQualification({ ...DEFAULT_ALERT_SETTINGS, minimumExposureBand: 'critical', alertOnCompromiseBelowThreshold: true }, 70, 'compromise_signal_found')).toBe('compromise_signal_found');
    expect(huntQualification({ ...DEFAULT_ALERT_SETTINGS, minimumExposureBand: 'critical', alertOnCompromiseBelowThreshold: false }, 70, 'compromise_signal_found')).toBeNull();
  });
  it('holds back a band qualification whose CVE is scored below the EPSS minimums, never a compromise signal or an unscored CVE', () => {
    const gate = { ...DEFAULT_ALERT_SETTINGS, minimumExposureBand: 'high' as const, minimumEpssProbability: 0.1, minimumEpssPercentile: 0.9 };
    expect(huntQualification(gate, 75, 'vulnerable_software_present', { probability: 0.05, percentile: 0.95 })).toBeNull();
    expect(huntQualification(gate, 75, 'vulnerable_software_present', { probability: 0.2, percentile: 0.8 })).toBeNull();
    expect(huntQualification(gate, 75, 'vulnerable_software_present', { probability: 0.2, percentile: 0.95 })).toBe('exposure_band');
    expect(huntQualification(gate, 75, 'vulnerable_software_present', null)).toBe('exposure_band');
    expect(huntQualification(gate, 90, 'compromise_signal_found', { probability: 0.01, percentile: 0.1 })).toBe('compromise_signal_found');
  });
});
