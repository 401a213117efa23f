import type { EventSpec } from '../../platform/events.js';
import { BANDS, bandOf, type Band, type ExposureState } from './exposure.fns.js';

/**
 * A run qualifies its threat for a hunt alert: the assessment emits `threat.alert_qualified` in
 * its transaction; the hunt-alert subscriber (hunt-alerts.adapter.ts, over the alerts module:
 * create, dedupe, reopen, route to `huntAlertRouting`) raises it and answers which alert. Without
 * a subscriber (a bus without it), runs still record `hunt_alert_qualified` activity.
 */
declare module '../../platform/events.js' {
  interface DomainEvents {
    'threat.alert_qualified': EventSpec<HuntAlertInput, HuntAlertOutcome>;
    /** The threat's exposure fell: its open hunt alert is resolved or its severity lowered (hunt-alerts.adapter.ts). */
    'threat.alert_receded': EventSpec<HuntAlertRecession, HuntAlertRecessionOutcome>;
  }
}

/**
 * A threat whose exposure fell while its hunt alert is open: `resolve` when nothing is exposed any
 * more (`not_affected`: the software was upgraded or removed, no compromise signal), `lower` when
 * the threat is still present in a lower band (the alert's severity follows it down, unless a
 * person set it: `fromSeverity` is the band the previous run gave).
 */
export interface HuntAlertRecession {
  organizationId: string;
  threatId: string;
  runId: string;
  alertId: string;
  change: 'resolve' | 'lower';
  severity: Band;
  fromSeverity: Band;
  title: string;
  description: string;
  reason: string;
}

export interface HuntAlertRecessionOutcome {
  alertId: string;
  /** What the subscriber did: `resolved`, `lowered`, or `unchanged` (already closed, or a person's severity kept). */
  outcome: 'resolved' | 'lowered' | 'unchanged';
}

export interface HuntAlertInput {
  organizationId: string;
  threatId: string;
  runId: string;
  title: string;
  description: string;
  severity: Band;
  /**
   * `compromise_signal_found` (the override), `exposure_band` (at or above the minimum band), or
   * `known_exploited` (the CVE is in CISA's KEV catalog and software it names is present, any band).
   */
  huntQualifiedBy: 'compromise_signal_found' | 'exposure_band' | 'known_exploited';
  /** One hunt alert per threat: `hunt:<threatId>`. */
  dedupeKey: string;
  /** The threat's latest hunt alert: reopened when it was closed. */
  previousAlertId: string | null;
}

export interface HuntAlertOutcome {
  alertId: string;
  outcome: 'created' | 'reopened' | 'deduplicated';
  /** Whether the alert is open after the call (it is the threat's active hunt alert). */
  open: boolean;
}

export interface AlertSettings {
  minimumExposureBand: Band;
  alertOnCompromiseBelowThreshold: boolean;
  /** EPSS gate on the exposure band (0..1, null: none); a compromise signal is never held back. */
  minimumEpssProbability: number | null;
  minimumEpssPercentile: number | null;
  /** Alert on a CVE in CISA's KEV catalog whenever software it names is present or may be, whatever the band. */
  alertOnKnownExploited: boolean;
}

export const DEFAULT_ALERT_SETTINGS: AlertSettings = { minimumExposureBand: 'high', alertOnCompromiseBelowThreshold: true, minimumEpssProbability: null, minimumEpssPercentile: null, alertOnKnownExploited: false };

export interface EpssScore { probability: number; percentile: number }

/**
 * Whether the CVE's EPSS reaches the settings' minimums. A threat with no score (no `epss`
 * source, a CVE too new to be scored, an advisory without a CVE) is not held back: the gate
 * drops what is known to be unlikely, never what is unknown.
 */
export function epssPasses(settings: AlertSettings, epss: EpssScore | null | undefined): boolean {
  if (!epss) return true;
  return (settings.minimumEpssProbability === null || epss.probability >= settings.minimumEpssProbability)
    && (settings.minimumEpssPercentile === null || epss.percentile >= settings.minimumEpssPercentile);
}

/** Whether a run qualifies for a hunt alert, and by what. */
export function huntQualification(settings: AlertSettings, exposureScore: number, exposureState: ExposureState | string, epss?: EpssScore | null, kevListed = false): HuntAlertInput['huntQualifiedBy'] | null {
  const band = bandOf(exposureScore);
  if (band && BANDS.indexOf(band) >= BANDS.indexOf(settings.minimumExposureBand)) {
    if (exposureState === 'compromise_signal_found') return 'compromise_signal_found';
    if (epssPasses(settings, epss)) return 'exposure_band';
  }
  if (exposureState === 'compromise_signal_found' && settings.alertOnCompromiseBelowThreshold) return 'compromise_signal_found';
  // KEV regardless of band (and of the EPSS gate: it is exploited), only where the org runs what it names.
  if (settings.alertOnKnownExploited && kevListed && (exposureState === 'vulnerable_software_present' || exposureState === 'possibly_affected')) return 'known_exploited';
  return null;
}

export const huntDedupeKey = (threatId: string) => `hunt:${threatId}`;

/** Alert statuses that make an alert the threat's active hunt alert. */
export const OPEN_ALERT_STATUSES = ['open', 'in_progress', 'escalated'];
