import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import { DEFAULT_ALERT_SETTINGS, type AlertSettings } from './hunt-alerts.js';
import type { Band } from './exposure.fns.js';

export async function readAlertSettings(db: Queryable, organizationId: string): Promise<AlertSettings> {
  const row = await db.selectFrom('huntSettings').select(['minimumExposureBand', 'alertOnCompromiseBelowThreshold', 'minimumEpssProbability', 'minimumEpssPercentile', 'alertOnKnownExploited']).where('organizationId', '=', organizationId).executeTakeFirst();
  return row ? { ...row, minimumExposureBand: row.minimumExposureBand as Band } : { ...DEFAULT_ALERT_SETTINGS };
}

export async function writeAlertSettings(db: Queryable, organizationId: string, s: AlertSettings): Promise<void> {
  await sql`
    INSERT INTO hunt_settings (organization_id, minimum_exposure_band, alert_on_compromise_below_threshold, minimum_epss_probability, minimum_epss_percentile, alert_on_known_exploited, updated_at)
    VALUES (${organizationId}, ${s.minimumExposureBand}, ${s.alertOnCompromiseBelowThreshold}, ${s.minimumEpssProbability}, ${s.minimumEpssPercentile}, ${s.alertOnKnownExploited}, now())
    ON CONFLICT (organization_id) DO UPDATE SET minimum_exposure_band = EXCLUDED.minimum_exposure_band,
      alert_on_compromise_below_threshold = EXCLUDED.alert_on_compromise_below_threshold,
      minimum_epss_probability = EXCLUDED.minimum_epss_probability, minimum_epss_percentile = EXCLUDED.minimum_epss_percentile,
      alert_on_known_exploited = EXCLUDED.alert_on_known_exploited, updated_at = now()`.execute(db);
}

/** The intel pass's mark: items processed after it have not been looked at for CVEs yet. */
export async function readWatermark(db: Queryable, organizationId: string): Promise<Date | null> {
  const row = await db.selectFrom('huntSettings').select('intelWatermark').where('organizationId', '=', organizationId).executeTakeFirst();
  return row?.intelWatermark ?? null;
}

export async function writeWatermark(db: Queryable, organizationId: string, mark: Date): Promise<void> {
  await sql`
    INSERT INTO hunt_settings (organization_id, intel_watermark, updated_at) VALUES (${organizationId}, ${mark}, now())
    ON CONFLICT (organization_id) DO UPDATE SET intel_watermark = GREATEST(hunt_settings.intel_watermark, EXCLUDED.intel_watermark)`.execute(db);
}
