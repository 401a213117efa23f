import type { ItemEvidence, OrgInventoryKeys, ThreatForAssessment } from './assess.store.js';
import { assessExposure, BANDS, bandOf, diffRuns, type CoveringDetection, type ThreatIndicator } from './exposure.fns.js';
import { huntDedupeKey, huntQualification, type AlertSettings, type EpssScore, type HuntAlertInput, type HuntAlertRecession } from './hunt-alerts.js';
import { keysMatch } from './inventory.fns.js';
import { combineMatches, cpeProductKeysOf, platformKeysOf, keysFor, matchDto, matchProse, matchStructured, packageKeysOf, proseProducts, type AdvisoryProduct, type InventorySoftware, type SoftwareMatch } from './matching.fns.js';
import { scoreRelevancy } from './relevancy.fns.js';
import { matchNvd, type NvdCriterion } from './nvd-match.fns.js';

/**
 * The decisions of an assessment run over a batch of threats, without I/O: relevancy (does the
 * org run it?) and exposure (are we hit?), the run rows with their diff against the previous run,
 * the threats' denormalized state, their activity, which threats get a rule proposal for their
 * found indicators, and which qualify for a hunt alert. assess.service.ts reads the evidence and
 * writes the plan (one writer, `writeAssessment`).
 */
export type RunKind = 'create' | 'reassess';
export type RunTrigger = 'new_threat' | 'new_intel' | 'inventory_change' | 'manual' | 'schedule' | 'sighting';

export type ProseAdvisories = Array<{ itemId: string; evidence: 'advisory-text' | 'kev'; products: AdvisoryProduct[] }>;

/** What each threat's advisories name: prose products, the inventory keys and package identities to read software for. */
export interface ThreatAdvisories {
  proseByThreat: Map<string, ProseAdvisories>;
  /** The NVD records of each threat's own CVE, by their vulnerable CPE criteria. */
  nvdByThreat: Map<string, Array<{ advisoryId: string; criteria: NvdCriterion[] }>>;
  keysByThreat: Map<string, Set<string>>;
  purlsByThreat: Map<string, Set<string>>;
  /** Product keys of packages a CSAF document identifies by CPE only (read by their exact key). */
  cpeKeysByThreat: Map<string, string[]>;
  /** Every key and purl of the batch: one software read of each kind. */
  neededKeys: Set<string>;
  neededPurls: Set<string>;
}

/**
 * The items that are evidence about a threat's own vulnerability: a structured record (NVD, OSV,
 * CSAF, KEV) only for the ids it carries itself — the CVE-2021-42013 record, whose description
 * mentions CVE-2021-41773, is linked to that threat as a report but gives it no ranges and no
 * KEV listing. Prose items (no record ids) are about every CVE they name.
 */
export function ownEvidence(canonicalKey: string, items: readonly ItemEvidence[]): ItemEvidence[] {
  const key = canonicalKey.toUpperCase();
  return items.filter((i) => !i.recordIds?.length || i.recordIds.includes(key));
}

/**
 * The advisories of each threat and the inventory keys and package identities they name. A
 * structured record of the threat's own CVE (OSV, CSAF, an NVD record with configurations) is
 * matched from its own fields only, and then no prose counts for that CVE (docs/hunt.md
 * "Evidence"); otherwise prose items and KEV's vendor/product (versionless: `unknown`) do.
 */
export function advisoriesOf(threats: readonly ThreatForAssessment[], itemsByThreat: ReadonlyMap<string, ItemEvidence[]>, orgKeys: OrgInventoryKeys): ThreatAdvisories {
  const out: ThreatAdvisories = { proseByThreat: new Map(), nvdByThreat: new Map(), keysByThreat: new Map(), purlsByThreat: new Map(), cpeKeysByThreat: new Map(), neededKeys: new Set(), neededPurls: new Set() };
  for (const t of threats) {
    const its = ownEvidence(t.canonicalKey, itemsByThreat.get(t.id) ?? []);
    const structured = its.flatMap((i) => (i.structured ? [i.structured] : []));
    const nvd = its.flatMap((i) => (i.nvdCriteria?.length ? [{ advisoryId: i.nvdId ?? i.id, criteria: i.nvdCriteria }] : []));
    out.nvdByThreat.set(t.id, nvd);
    const prose: ProseAdvisories = structured.length || nvd.length ? [] : [
      // Prose only where no structured record exists: an NVD record not analysed yet (no configurations) is its text.
      ...its.filter((i) => !i.structured).map((i) => ({
        itemId: i.nvdId ?? i.id,
        evidence: 'advisory-text' as const,
        products: proseProducts(i.text, i.affectedProducts, orgKeys.productKeys, orgKeys.packageOnlyKeys),
      })),
      ...its.filter((i) => i.kevProducts?.length).map((i) => ({ itemId: i.recordIds![0]!, evidence: 'kev' as const, products: i.kevProducts! })),
    ];
    out.proseByThreat.set(t.id, prose);
    const keys = new Set<string>();
    for (const p of prose) for (const a of p.products) for (const k of keysFor(a, orgKeys.productKeys)) keys.add(k), out.neededKeys.add(k);
    // Each product once: a record lists hundreds of criteria of a few products (Oracle's, Log4j's ranges).
    for (const key of new Set(nvd.flatMap((n) => n.criteria.map((c) => c.key)))) for (const k of keysFor({ vendor: '', product: key, versions: [], via: 'advisory' }, orgKeys.productKeys)) keys.add(k), out.neededKeys.add(k);
    out.keysByThreat.set(t.id, keys);
    // Packages a CSAF document identifies by CPE only are read by their exact product key.
    // So are the platform products CSAF component statements are scoped to (runsPlatform reads the asset's).
    const platformKeys = platformKeysOf(structured).productKeys.flatMap((k) => [...orgKeys.productKeys].filter((o) => keysMatch(k, o)));
    const cpeKeys = [...new Set([...cpeProductKeysOf(structured).filter((k) => orgKeys.productKeys.has(k)), ...platformKeys])];
    for (const k of cpeKeys) out.neededKeys.add(k);
    out.cpeKeysByThreat.set(t.id, cpeKeys);
    const purls = new Set<string>();
    for (const k of packageKeysOf(structured)) for (const p of orgKeys.purlsByKey.get(k) ?? []) purls.add(p), out.neededPurls.add(p);
    out.purlsByThreat.set(t.id, purls);
  }
  return out;
}

export interface AssessmentInput {
  organizationId: string;
  kind: RunKind;
  trigger: RunTrigger;
  now: Date;
  actorUserId?: string | null;
  threats: readonly ThreatForAssessment[];
  /** The items that are still evidence (not retracted), one per threat they belong to, and grouped by threat. */
  items: readonly ItemEvidence[];
  itemsByThreat: ReadonlyMap<string, ItemEvidence[]>;
  /** Threats whose every item is retracted: retired, not deleted. */
  withdrawnThreats: ReadonlySet<string>;
  advisories: ThreatAdvisories;
  softwareByKey: ReadonlyMap<string, InventorySoftware[]>;
  softwareByPurl: ReadonlyMap<string, InventorySoftware[]>;
  indicators: ReadonlyArray<ThreatIndicator & { itemId: string }>;
  sightings: ReadonlyArray<{ indicatorId: string; value: string; source: string; assetIdentifier: string | null; observedAt: Date }>;
  detections: ReadonlyArray<CoveringDetection & { threatId: string }>;
  /** Indicator types the organization reported any sighting of, last 30 days. */
  telemetry: ReadonlySet<string>;
  settings: AlertSettings;
  epss: ReadonlyMap<string, EpssScore>;
  /** Run ids (uuid v7 in the service; fixed in tests). */
  newId: () => string;
}

/** A row of hunt_threat_runs, as written. */
export interface ThreatRunRow {
  id: string;
  organization_id: string;
  threat_id: string;
  run_at: string;
  kind: RunKind;
  trigger: RunTrigger;
  relevancy_score: number;
  exposure_score: number;
  relevancy_headline: string;
  relevancy_explanation: string[];
  exposure_state: string;
  coverage_state: string;
  has_found_ioc: boolean;
  has_blocking_gap: boolean;
  exposure_story: Record<string, unknown>;
  diff: ReturnType<typeof diffRuns>;
  matches: Array<ReturnType<typeof matchDto>>;
}

/** A threat's denormalized assessment state after its run. */
export interface ThreatUpdate {
  id: string;
  rs: number;
  es: number;
  st: string;
  cs: string;
  run: string;
}

/** An activity entry of a threat (hunt_activity_events; the writer gives it its id and time, in order). */
export interface PlannedActivity {
  threatId: string;
  runId: string;
  kind: string;
  actorType: 'user' | 'system';
  metadata: { score: number; exposureScore?: number; hunting: boolean; executionId: string; canonicalKey: string; label: string; userId?: string };
}

/** A threat whose found indicators get a rule proposal (superseding an older one unless it pins the same). */
export interface PlannedProposal {
  threat: ThreatForAssessment;
  found: ThreatIndicator[];
  items: ItemEvidence[];
  runId: string;
}

/** A threat whose exposure fell while its hunt alert is open: the `threat.alert_receded` payload and its activity. */
export interface PlannedRecession {
  threatId: string;
  activity: PlannedActivity;
  input: HuntAlertRecession;
}

/** A threat whose run qualifies for a hunt alert: its `hunt_alert_qualified` activity and the event's payload. */
export interface PlannedAlert {
  threatId: string;
  activity: PlannedActivity;
  input: HuntAlertInput;
}

export interface AssessmentPlan {
  /** One per threat, in the threats' order. */
  runs: ThreatRunRow[];
  updates: ThreatUpdate[];
  /** `threat_assessed` and `exposure_changed`, before any proposal or alert activity of the same threat. */
  events: PlannedActivity[];
  proposals: PlannedProposal[];
  alerts: PlannedAlert[];
  /** Open hunt alerts whose threat's exposure fell (resolved or lowered with it). */
  recessions: PlannedRecession[];
}

export function planAssessment(input: AssessmentInput): AssessmentPlan {
  const { organizationId, now } = input;
  const { indicatorsByThreat, sightingsByThreat } = evidenceByThreat(input);
  const plan: AssessmentPlan = { runs: [], updates: [], events: [], proposals: [], alerts: [], recessions: [] };
  for (const t of input.threats) {
    const its = input.itemsByThreat.get(t.id) ?? [];
    // Another CVE's records (linked because their text names this one) say nothing of this CVE's exploitation.
    const own = ownEvidence(t.canonicalKey, its);
    const matches = matchThreat(t.id, own, input.advisories, input.softwareByKey, input.softwareByPurl);
    const knownExploited = own.some((i) => i.knownExploited);
    const kev = own.map((i) => i.kev).find((k) => k) ?? null;
    const relevancy = scoreRelevancy({ canonicalKey: t.canonicalKey, matches, knownExploited, newestReportAt: newestOf(its), now, withdrawn: input.withdrawnThreats.has(t.id), kev });
    // One indicator per value: the same IP named by three items is one thing to check.
    const threatIndicators = indicatorsByThreat.get(t.id) ?? [];
    const threatSightings = sightingsByThreat.get(t.id) ?? [];
    const runId = input.newId();
    const exposure = assessExposure({
      runId,
      runAt: now,
      canonicalKey: t.canonicalKey,
      matches,
      knownExploited,
      indicators: threatIndicators,
      sightings: dedupeBy(threatSightings, (s) => `${s.indicatorId}\u0000${s.source}\u0000${s.observedAt.toISOString()}`),
      telemetryTypes: input.telemetry,
      detections: input.detections.filter((d) => d.threatId === t.id),
      techniques: [...new Set(its.flatMap((i) => i.techniques))],
      reports: its.map((i) => ({ id: i.id, title: i.title, publishedAt: i.publishedAt })),
    });
    const diff = diffRuns(t.prev, { relevancyScore: relevancy.score, exposureScore: exposure.exposureScore, exposureState: exposure.exposureState, coverageState: exposure.coverageState });
    plan.runs.push({
      id: runId, organization_id: organizationId, threat_id: t.id, run_at: now.toISOString(), kind: input.kind, trigger: input.trigger,
      relevancy_score: relevancy.score, exposure_score: exposure.exposureScore, relevancy_headline: relevancy.headline,
      relevancy_explanation: relevancy.explanation, exposure_state: exposure.exposureState, coverage_state: exposure.coverageState,
      has_found_ioc: exposure.hasFoundIoc, has_blocking_gap: exposure.hasBlockingGap, exposure_story: exposure.story, diff, matches: matches.map(matchDto),
    });
    plan.updates.push({ id: t.id, rs: relevancy.score, es: exposure.exposureScore, st: exposure.exposureState, cs: exposure.coverageState, run: runId });
    // Every entry but `threat_assessed` scores the exposure.
    const activity = (kind: string, label: string): PlannedActivity => ({
      threatId: t.id,
      runId,
      kind,
      actorType: 'system',
      metadata: { score: exposure.exposureScore, hunting: exposure.hasFoundIoc, executionId: runId, canonicalKey: t.canonicalKey, label },
    });
    const assessed = activity('threat_assessed', `${input.kind}/${input.trigger}`);
    plan.events.push({
      ...assessed,
      actorType: input.actorUserId ? 'user' : 'system',
      metadata: { ...assessed.metadata, score: relevancy.score, exposureScore: exposure.exposureScore, ...(input.actorUserId ? { userId: input.actorUserId } : {}) },
    });
    if (t.prev && t.prev.exposureState !== exposure.exposureState) plan.events.push(activity('exposure_changed', `${t.prev.exposureState} → ${exposure.exposureState}`));
    // Rule proposals for the indicators this threat has, superseding an older proposal.
    const found = threatIndicators.filter((i) => i.status === 'found' || threatSightings.some((s) => s.indicatorId === i.id));
    if (found.length) plan.proposals.push({ threat: t, found, items: its, runId });

    // A dismissed threat raises a hunt alert only on a compromise signal (someone decided it does not matter; being hit still does).
    const qualification = huntQualification(input.settings, exposure.exposureScore, exposure.exposureState, input.epss.get(t.canonicalKey), !!kev);
    const qualifiedBy = t.dismissed && exposure.exposureState !== 'compromise_signal_found' ? null : qualification;
    const title = `${t.canonicalKey}: ${exposure.story.headline as string}`;
    const description = [...relevancy.explanation, ...(exposure.story.summary as string[])].join(' ');
    // The open alert follows its threat down too: resolved when nothing is exposed any more, its
    // severity lowered with the band while the threat is still present.
    const recession = recessionOf(t, exposure.exposureState, exposure.exposureScore);
    if (recession) {
      const reason = recession === 'resolve'
        ? `Hunt: the threat no longer affects the organization (exposure ${t.prev!.exposureState} → ${exposure.exposureState}): ${exposure.story.headline as string}`
        : `Hunt: the threat's exposure fell (${t.prev!.exposureScore} → ${exposure.exposureScore})`;
      plan.recessions.push({
        threatId: t.id,
        activity: activity(recession === 'resolve' ? 'hunt_alert_resolved' : 'hunt_alert_lowered', t.activeHuntAlertId!),
        input: {
          organizationId, threatId: t.id, runId, alertId: t.activeHuntAlertId!, change: recession, severity: bandOf(exposure.exposureScore) ?? 'low',
          fromSeverity: bandOf(t.prev!.exposureScore) ?? 'low', title, description, reason,
        },
      });
    }
    if (!qualifiedBy) continue;
    // New evidence (a higher score, more indicators seen) or a run that newly qualifies raises
    // again: the alerts side reopens a resolved alert or dedupes into the open one.
    const foundCount = (exposure.story.iocFindings as unknown[]).length;
    const escalated = !t.prev || t.prev.exposureScore < exposure.exposureScore || t.prev.foundIocCount < foundCount || huntQualification(input.settings, t.prev.exposureScore, t.prev.exposureState, input.epss.get(t.canonicalKey), !!kev) === null;
    if (t.activeHuntAlertId && !escalated) continue;
    plan.alerts.push({
      threatId: t.id,
      activity: activity('hunt_alert_qualified', qualifiedBy),
      input: {
        organizationId, threatId: t.id, runId, huntQualifiedBy: qualifiedBy, dedupeKey: huntDedupeKey(t.id), previousAlertId: t.latestAlertId, severity: bandOf(exposure.exposureScore) ?? 'low',
        title,
        description,
      },
    });
  }
  return plan;
}

/**
 * Whether a threat's open hunt alert recedes with this run: `resolve` when the exposure fell to
 * `not_affected` (the software was upgraded or removed; no compromise signal), `lower` when the
 * threat is still present but its band fell. Null without an open alert or a previous run.
 */
export function recessionOf(t: Pick<ThreatForAssessment, 'activeHuntAlertId' | 'prev'>, exposureState: string, exposureScore: number): 'resolve' | 'lower' | null {
  if (!t.activeHuntAlertId || !t.prev) return null;
  if (exposureState === 'not_affected') return 'resolve';
  const before = bandOf(t.prev.exposureScore);
  const after = bandOf(exposureScore);
  return before && after && BANDS.indexOf(after) < BANDS.indexOf(before) ? 'lower' : null;
}

/** Each threat's indicators, one per (type, value), and its sightings pointed at the kept indicator. */
function evidenceByThreat(input: AssessmentInput) {
  const threatOfItem = new Map(input.items.map((i) => [i.id, i.threatId]));
  const indicatorKey = (i: { type: string; normalizedValue: string }) => `${i.type}\u0000${i.normalizedValue}`;
  const indicatorsByThreat = new Map<string, ThreatIndicator[]>();
  const keptId = new Map<string, string>();
  for (const ind of input.indicators) {
    const threatId = threatOfItem.get(ind.itemId);
    if (!threatId) continue;
    const k = `${threatId}\u0000${indicatorKey(ind)}`;
    if (keptId.has(k)) continue;
    keptId.set(k, ind.id);
    const list = indicatorsByThreat.get(threatId) ?? [];
    list.push(ind);
    indicatorsByThreat.set(threatId, list);
  }
  const indicatorById = new Map(input.indicators.map((i) => [i.id, i]));
  const sightingsByThreat = new Map<string, Array<AssessmentInput['sightings'][number]>>();
  for (const s of input.sightings) {
    const ind = indicatorById.get(s.indicatorId);
    const threatId = ind && threatOfItem.get(ind.itemId);
    if (!ind || !threatId) continue;
    const list = sightingsByThreat.get(threatId) ?? [];
    list.push({ ...s, indicatorId: keptId.get(`${threatId}\u0000${indicatorKey(ind)}`)! });
    sightingsByThreat.set(threatId, list);
  }
  return { indicatorsByThreat, sightingsByThreat };
}

/** A threat's matches: structured records against its packages, prose against its product keys, combined (matching.fns.ts). */
function matchThreat(
  threatId: string,
  items: ItemEvidence[],
  advisories: ThreatAdvisories,
  softwareByKey: ReadonlyMap<string, InventorySoftware[]>,
  softwareByPurl: ReadonlyMap<string, InventorySoftware[]>,
): SoftwareMatch[] {
  const packages = [
    ...[...(advisories.purlsByThreat.get(threatId) ?? [])].flatMap((p) => softwareByPurl.get(p) ?? []),
    ...(advisories.cpeKeysByThreat.get(threatId) ?? []).flatMap((k) => softwareByKey.get(k) ?? []),
  ];
  const candidates = [...(advisories.keysByThreat.get(threatId) ?? [])].flatMap((k) => softwareByKey.get(k) ?? []);
  const structured = [
    ...matchStructured(items.flatMap((i) => (i.structured ? [i.structured] : [])), packages),
    ...(advisories.nvdByThreat.get(threatId) ?? []).flatMap((n) => matchNvd(n.advisoryId, n.criteria, candidates)),
  ];
  const prose = (advisories.proseByThreat.get(threatId) ?? []).flatMap((p) => matchProse(p.products, candidates, p.itemId, p.evidence));
  return combineMatches(structured, prose);
}

export function group<T>(list: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of list) {
    const k = key(x);
    const l = m.get(k);
    if (l) l.push(x);
    else m.set(k, [x]);
  }
  return m;
}

function dedupeBy<T>(list: T[], key: (t: T) => string): T[] {
  const m = new Map<string, T>();
  for (const x of list) if (!m.has(key(x))) m.set(key(x), x);
  return [...m.values()];
}

function newestOf(items: ItemEvidence[]): Date | null {
  let best: Date | null = null;
  for (const i of items) if (i.publishedAt && (!best || i.publishedAt > best)) best = i.publishedAt;
  return best;
}
