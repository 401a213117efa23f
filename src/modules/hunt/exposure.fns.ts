import type { SoftwareMatch } from './matching.fns.js';
import { indicatorGroupOf } from '../intel/index.js';

/**
 * Exposure: are we affected, and are we already hit? From real evidence only: the software
 * matches, the threat's indicators checked against sightings and `/iocs/{id}/checks`, and the
 * detections that cover those indicators. Pure, no I/O; bands and scores in docs/hunt.md.
 */
export const EXPOSURE_STATES = ['not_affected', 'possibly_affected', 'vulnerable_software_present', 'compromise_signal_found'] as const;
export type ExposureState = (typeof EXPOSURE_STATES)[number];
export const COVERAGE_STATES = ['none', 'partial', 'full'] as const;
export type CoverageState = (typeof COVERAGE_STATES)[number];
export const BANDS = ['low', 'medium', 'high', 'critical'] as const;
export type Band = (typeof BANDS)[number];

/** Lowest exposure score of each band; below `low` (score 0) is no band. */
export const BAND_FLOOR: Record<Band, number> = { low: 1, medium: 40, high: 60, critical: 80 };

export function bandOf(score: number): Band | null {
  return score >= 80 ? 'critical' : score >= 60 ? 'high' : score >= 40 ? 'medium' : score >= 1 ? 'low' : null;
}

export interface ThreatIndicator {
  id: string;
  type: string;
  value: string;
  normalizedValue: string;
  /** The indicator's hunt status from `/iocs/{id}/checks` (found, clean, unchecked, unknown). */
  status: string;
  lastCheckedAt: Date | null;
}

export interface Sighting {
  indicatorId: string;
  value: string;
  source: string;
  assetIdentifier: string | null;
  observedAt: Date;
}

export interface CoveringDetection {
  id: string;
  name: string;
  kind: 'rule_proposal';
  platform: string;
  lifecycleStatus: string;
  pinnedValues: string[];
}

export interface ExposureInput {
  runId: string;
  runAt: Date;
  canonicalKey: string;
  matches: readonly SoftwareMatch[];
  knownExploited: boolean;
  indicators: readonly ThreatIndicator[];
  sightings: readonly Sighting[];
  /** Indicator types the organization reported any sighting of (its telemetry), last 30 days. */
  telemetryTypes: ReadonlySet<string>;
  detections: readonly CoveringDetection[];
  techniques: readonly string[];
  reports: ReadonlyArray<{ id: string; title: string; publishedAt: Date | null }>;
}

/** Hunt's names for two types; every other `iocType` is intel's group (`hash`, ssdeep included; `ip`) or the type. */
const HUNT_NAMES: ReadonlyMap<string, string> = new Map([['filename', 'file'], ['registry-key', 'registry']]);
export const iocTypeOf = (t: string) => HUNT_NAMES.get(t) ?? indicatorGroupOf(t);

export interface ExposureResult {
  exposureState: ExposureState;
  exposureScore: number;
  coverageState: CoverageState;
  hasFoundIoc: boolean;
  hasBlockingGap: boolean;
  story: Record<string, unknown>;
}

export function assessExposure(input: ExposureInput): ExposureResult {
  const inside = input.matches.filter((m) => m.verdict === 'affected');
  const unknown = input.matches.filter((m) => m.verdict === 'unknown');
  const affected = [...inside, ...unknown];
  const sightedIds = new Set(input.sightings.map((s) => s.indicatorId));
  const foundIds = new Set(input.indicators.filter((i) => i.status === 'found' || sightedIds.has(i.id)).map((i) => i.id));
  const hasFoundIoc = foundIds.size > 0;
  const facing = affected.some((m) => m.software.internetFacing);
  const critical = affected.some((m) => m.software.criticality === 'high' || m.software.criticality === 'critical');

  // Coverage: detections past authoring (review, deployed) that pin the threat's indicators.
  const covered = new Set<string>();
  for (const d of input.detections) if (d.lifecycleStatus === 'deployed') for (const v of d.pinnedValues) covered.add(v);
  const coveredCount = input.indicators.filter((i) => covered.has(i.normalizedValue)).length;
  const coverageState: CoverageState = coveredCount === 0 ? 'none' : coveredCount === input.indicators.length ? 'full' : 'partial';

  const exposureState: ExposureState = hasFoundIoc ? 'compromise_signal_found' : inside.length ? 'vulnerable_software_present' : unknown.length ? 'possibly_affected' : 'not_affected';
  let score = 0;
  if (exposureState === 'compromise_signal_found') score = 70 + (inside.length ? 10 : 0) + (facing ? 10 : 0) + (input.knownExploited ? 10 : 0);
  else if (exposureState === 'vulnerable_software_present') score = Math.min(85, 50 + (facing ? 15 : 0) + (critical ? 10 : 0) + (input.knownExploited ? 10 : 0)) - (coverageState === 'full' ? 15 : 0);
  else if (exposureState === 'possibly_affected') score = Math.min(45, 25 + (facing ? 10 : 0) + (critical ? 5 : 0) + (input.knownExploited ? 5 : 0));
  score = Math.min(100, score);

  const window = { start: new Date(input.runAt.getTime() - 30 * 86_400_000).toISOString(), end: input.runAt.toISOString() };
  const sightingsOf = (id: string) => input.sightings.filter((s) => s.indicatorId === id);

  const exposureChecks = input.indicators.map((i) => {
    const seen = sightingsOf(i.id);
    const checkedFound = i.status === 'found';
    const observable = input.telemetryTypes.has(i.type) || i.status !== 'unchecked';
    return {
      purpose: 'exposure',
      checked: i.value,
      source: seen.length ? [...new Set(seen.map((s) => s.source))].join(', ') : i.status !== 'unchecked' ? 'indicator check' : 'sightings',
      scope: 'org',
      timeWindow: window,
      outcome: seen.length || checkedFound ? 'found' : observable ? (i.status === 'unknown' ? 'unknown' : 'not_found') : 'not_checked',
      evidence: seen.length
        ? `Seen ${seen.length} time(s), last ${seen.map((s) => s.observedAt.toISOString()).sort().at(-1)}${seen[0]!.assetIdentifier ? ` on ${seen[0]!.assetIdentifier}` : ''}.`
        : checkedFound ? `Marked found by an indicator check${i.lastCheckedAt ? ` at ${i.lastCheckedAt.toISOString()}` : ''}.` : 'No sighting reported.',
      limitations: observable ? [] : [`No ${iocTypeOf(i.type)} telemetry has been reported in the last 30 days.`],
      indicatorId: i.id,
      authoritative: seen.length > 0 || i.status === 'found' || i.status === 'clean',
      iocType: iocTypeOf(i.type),
      indicatorRole: 'compromise',
    };
  });

  const iocFindings = input.indicators.filter((i) => foundIds.has(i.id)).map((i) => {
    const seen = sightingsOf(i.id);
    return {
      iocType: iocTypeOf(i.type),
      role: 'compromise',
      platform: null,
      iocValue: i.value,
      evidence: seen.length ? `Reported by ${[...new Set(seen.map((s) => s.source))].join(', ')}.` : 'Marked found by an indicator check.',
      affectedSystems: [...new Set(seen.map((s) => s.assetIdentifier).filter((a): a is string => !!a))],
      indicatorId: i.id,
      authoritative: true,
    };
  });

  const gaps: Array<Record<string, unknown>> = [];
  const blindTypes = [...new Set(input.indicators.filter((i) => !input.telemetryTypes.has(i.type) && i.status === 'unchecked').map((i) => iocTypeOf(i.type)))];
  for (const t of blindTypes) {
    gaps.push({ product: 'sightings', logSource: t, scopeType: 'org', scopeId: null, scopeKey: t, blocking: !hasFoundIoc, description: `No ${t} sightings were reported in the last 30 days, so this threat's ${t} indicators could not be checked.`, limitations: [] });
  }
  for (const m of unknown) {
    gaps.push({ product: m.software.product, logSource: 'inventory', scopeType: 'org', scopeId: m.software.assetId, scopeKey: m.software.identifier, blocking: false, description: `The version of ${m.software.product} on ${m.software.identifier} is unknown or the advisory gives no range.`, limitations: [] });
  }
  const hasBlockingGap = gaps.some((g) => g.blocking === true);

  const assets = affected.map((m) => ({
    identifier: m.software.identifier,
    source: 'inventory',
    evidence: `${m.software.product}${m.software.version ? ` ${m.software.version}` : ''} (${m.verdict === 'affected' ? 'inside the affected range' : 'version not confirmed'})`,
    kind: m.software.kind,
    platform: m.software.platform,
    internetFacing: m.software.internetFacing,
  }));
  const observations = affected.map((m, n) => ({
    observationId: `obs-${n + 1}`,
    kind: 'software_presence',
    summary: `${m.software.identifier} runs ${m.software.product}${m.software.version ? ` ${m.software.version}` : ''}.`,
    evidence: m.verdict === 'affected' ? `Inside ${m.affectedRange ?? 'the affected versions'}${m.evidence === 'advisory-text' ? '' : ` (${m.advisoryId})`}.` : 'Version not confirmed against the advisory.',
    affectedSystems: [m.software.identifier],
    timeWindow: window,
  }));
  const discoveredIndicators = input.indicators.map((i) => ({ indicatorId: i.id, iocType: iocTypeOf(i.type), role: 'compromise', iocValue: i.value, roleRationale: 'Named as an indicator in an intel item about this CVE.', evidence: `Hunt status ${i.status}.`, platform: null }));
  const researchContext = input.reports.map((r) => ({ contextId: r.id, summary: r.title, evidence: r.publishedAt ? `Published ${r.publishedAt.toISOString()}.` : 'Publication date unknown.' }));
  const matchesDetections = input.detections.map((d) => ({
    ref: { id: d.id, name: d.name, kind: d.kind, platform: d.platform, url: null },
    coverage: d.lifecycleStatus === 'deployed' ? (d.pinnedValues.length >= input.indicators.length ? 'full' : 'partial') : 'none',
    rationale: `Pins ${d.pinnedValues.length} of the threat's ${input.indicators.length} indicator(s); status ${d.lifecycleStatus}.`,
    limitations: d.lifecycleStatus === 'deployed' ? [] : ['Not deployed yet: it detects nothing until it is.'],
  }));

  const headline = exposureState === 'compromise_signal_found'
    ? `Compromise signal: ${iocFindings.length} indicator(s) of ${input.canonicalKey} seen`
    : exposureState === 'vulnerable_software_present'
      ? `Vulnerable software present on ${new Set(inside.map((m) => m.software.identifier)).size} asset(s)`
      : exposureState === 'possibly_affected' ? 'Possibly affected: versions not confirmed' : 'Not affected';
  const summary = [
    headline + '.',
    input.indicators.length ? `${input.indicators.length} indicator(s) checked; ${foundIds.size} found.` : 'The intel names no indicators for this CVE.',
    `Detection coverage: ${coverageState}.`,
  ];
  const nextSteps: string[] = [];
  if (hasFoundIoc) nextSteps.push('Investigate the systems where the indicators were seen and contain them.');
  if (inside.length) nextSteps.push(`Patch or mitigate ${input.canonicalKey} on ${[...new Set(inside.map((m) => m.software.identifier))].slice(0, 5).join(', ')}.`);
  if (unknown.length) nextSteps.push('Confirm the installed versions of the possibly affected software.');
  if (blindTypes.length) nextSteps.push(`Report ${blindTypes.join(', ')} sightings (POST /api/sightings) so the indicators can be checked.`);
  if (input.indicators.length && coverageState !== 'full') nextSteps.push('Review and deploy the proposed detection rule.');
  if (!nextSteps.length) nextSteps.push('No action needed; the threat is reassessed when intel or inventory changes.');

  const timeline = [
    ...input.reports.filter((r) => r.publishedAt).map((r) => ({ timestamp: r.publishedAt!.toISOString(), description: `Reported: ${r.title}` })),
    ...input.sightings.map((s) => ({ timestamp: s.observedAt.toISOString(), description: `${s.value} seen by ${s.source}${s.assetIdentifier ? ` on ${s.assetIdentifier}` : ''}` })),
    { timestamp: input.runAt.toISOString(), description: `Assessed: ${headline}` },
  ].sort((a, b) => a.timestamp.localeCompare(b.timestamp));

  const story = {
    exposureState,
    summary,
    nextSteps,
    executionId: input.runId,
    runAt: input.runAt.toISOString(),
    headline,
    exposureChecks,
    assets,
    iocFindings,
    detectionCoverage: {
      state: coverageState,
      searches: [{ source: 'sightings', criteria: `${input.indicators.length} indicator value(s)`, evidence: `${input.sightings.length} sighting(s) matched`, limitations: blindTypes.map((t) => `no ${t} telemetry`), resultCount: input.sightings.length }],
      matches: matchesDetections,
    },
    gaps,
    discoveredIndicators,
    observations,
    researchContext,
    conclusion: { headline, summary, supportingFindingIds: [...observations.map((o) => o.observationId), ...iocFindings.map((f) => f.indicatorId)], contextIds: researchContext.map((c) => c.contextId) },
    timeline,
  };
  return { exposureState, exposureScore: score, coverageState, hasFoundIoc, hasBlockingGap, story };
}

export interface RunSnapshot {
  id: string;
  relevancyScore: number;
  exposureScore: number;
  exposureState: string;
  coverageState: string;
}

/** The diff of a run against the previous one, with the reasons in words. */
export function diffRuns(prev: RunSnapshot | null, next: Omit<RunSnapshot, 'id'>) {
  const reasons: string[] = [];
  if (!prev) reasons.push('First assessment.');
  else {
    if (prev.relevancyScore !== next.relevancyScore) reasons.push(`Relevancy ${prev.relevancyScore} → ${next.relevancyScore}.`);
    if (prev.exposureScore !== next.exposureScore) reasons.push(`Exposure score ${prev.exposureScore} → ${next.exposureScore}.`);
    if (prev.exposureState !== next.exposureState) reasons.push(`Exposure ${prev.exposureState} → ${next.exposureState}.`);
    if (prev.coverageState !== next.coverageState) reasons.push(`Coverage ${prev.coverageState} → ${next.coverageState}.`);
    if (!reasons.length) reasons.push('No change.');
  }
  return {
    prevRunId: prev?.id ?? null,
    beforeExposureScore: prev?.exposureScore ?? 0,
    afterExposureScore: next.exposureScore,
    beforeExposureState: prev?.exposureState ?? 'not_affected',
    afterExposureState: next.exposureState,
    beforeCoverageState: prev?.coverageState ?? 'none',
    afterCoverageState: next.coverageState,
    reasons,
  };
}
