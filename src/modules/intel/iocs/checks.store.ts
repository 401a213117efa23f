import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../../platform/db/database.js';

export type CheckOutcome = 'found' | 'clean' | 'unknown';

/**
 * Records a check of an indicator's value (organization, type, normalized value): the check is
 * stored once, against the value, and the value's status, the outcome of its most recent check
 * by checkedAt, is written to every mention of it (migration 0022; later mentions take it on
 * insert). The value's row is locked: concurrent checks of one value apply in turn; a late
 * report of an older check does not override a newer one. Returns the check id.
 */
export async function applyIndicatorCheck(
  tx: Queryable,
  organizationId: string,
  ioc: { id: string; type: string; normalizedValue: string },
  check: { outcome: CheckOutcome; evidence: string | null; checkedAt: Date; createdBy: string | null },
): Promise<string> {
  const sameValue = { organizationId, type: ioc.type, normalizedValue: ioc.normalizedValue };
  const created = await tx
    .insertInto('intelIndicatorValues')
    .values({ id: uuidv7(), ...sameValue, status: check.outcome, lastCheckedAt: check.checkedAt })
    .onConflict((oc) => oc.columns(['organizationId', 'type', 'normalizedValue']).doNothing())
    .returning('id')
    .executeTakeFirst();
  let valueId = created?.id;
  let newest = true;
  if (!valueId) {
    const value = await tx.selectFrom('intelIndicatorValues').select(['id', 'lastCheckedAt']).where('organizationId', '=', organizationId).where('type', '=', ioc.type).where('normalizedValue', '=', ioc.normalizedValue).forUpdate().executeTakeFirstOrThrow();
    valueId = value.id;
    newest = value.lastCheckedAt.getTime() <= check.checkedAt.getTime();
    if (newest) await tx.updateTable('intelIndicatorValues').set({ status: check.outcome, lastCheckedAt: check.checkedAt }).where('id', '=', valueId).execute();
  }
  const checkId = uuidv7();
  await tx
    .insertInto('intelIndicatorChecks')
    .values({ id: checkId, organizationId, valueId, indicatorId: ioc.id, outcome: check.outcome, evidence: check.evidence, checkedAt: check.checkedAt, createdBy: check.createdBy, createdAt: new Date() })
    .execute();
  if (newest) {
    await tx.updateTable('intelIndicators').set({ status: check.outcome, lastCheckedAt: check.checkedAt })
      .where('organizationId', '=', organizationId).where('type', '=', ioc.type).where('normalizedValue', '=', ioc.normalizedValue).execute();
  }
  return checkId;
}

/**
 * Sightings (values a log pipeline saw, reported to the hunt) are checks that found the value:
 * each indicator value of the organization that was sighted becomes `found` on `/iocs`, with a
 * check saying where and when it was seen. Values that are no indicator are left alone.
 */
export async function recordSightedIndicators(
  tx: Queryable,
  organizationId: string,
  sightings: ReadonlyArray<{ normalizedValue: string; source: string; assetIdentifier: string | null; observedAt: Date }>,
  createdBy: string | null,
): Promise<number> {
  // The latest sighting of each value is its check.
  const latest = new Map<string, (typeof sightings)[number]>();
  for (const s of sightings) if ((latest.get(s.normalizedValue)?.observedAt.getTime() ?? -Infinity) < s.observedAt.getTime()) latest.set(s.normalizedValue, s);
  const { rows } = await sql<{ id: string; type: string; normalizedValue: string }>`
    SELECT DISTINCT ON (type, normalized_value) id, type, normalized_value AS "normalizedValue"
    FROM intel_indicators WHERE organization_id = ${organizationId} AND normalized_value = ANY(${[...latest.keys()]}::text[])
    ORDER BY type, normalized_value, id`.execute(tx);
  for (const ioc of rows) {
    const s = latest.get(ioc.normalizedValue)!;
    const evidence = `Sighted by ${s.source}${s.assetIdentifier ? ` on ${s.assetIdentifier}` : ''}`;
    await applyIndicatorCheck(tx, organizationId, ioc, { outcome: 'found', evidence, checkedAt: s.observedAt, createdBy });
  }
  return rows.length;
}
