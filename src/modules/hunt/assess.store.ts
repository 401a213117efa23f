import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import { classificationSummary, storedPackagesOf, storedRecordKey, type AffectedPackage, type StoredRecordRef, type VulnerabilityRecord } from '../intel/index.js';
import { packageKeysOf, type AdvisoryProduct, type InventorySoftware, type StructuredAdvisory } from './matching.fns.js';
import { purlKey, purlNameOfKey } from './identity.fns.js';
import type { CoveringDetection, ThreatIndicator } from './exposure.fns.js';
import { nvdCriteria, type NvdCriterion } from './nvd-match.fns.js';
import { kevProducts } from './kev-products.fns.js';

/**
 * The set-based reads of an assessment: one query per kind of evidence for a whole batch of
 * threats (items, org product keys, matching software, indicators, sightings, detections), so a
 * full reassessment costs a handful of round trips per batch, never one per threat.
 */
export interface ThreatForAssessment {
  id: string;
  canonicalKey: string;
  title: string;
  latestRunId: string | null;
  activeHuntAlertId: string | null;
  latestAlertId: string | null;
  dismissed: boolean;
  prev: { id: string; relevancyScore: number; exposureScore: number; exposureState: string; coverageState: string; hasFoundIoc: boolean; foundIocCount: number } | null;
}

export interface ItemEvidence {
  id: string;
  threatId: string;
  title: string;
  text: string;
  publishedAt: Date | null;
  knownExploited: boolean;
  /** Retracted by its source (an OSV record withdrawn, a STIX object revoked): no evidence any more. */
  retracted: boolean;
  affectedProducts: AdvisoryProduct[];
  /** The item's structured record (OSV), null for prose-only items. */
  structured: StructuredAdvisory | null;
  /** An OSV record's key in the vulnerability store, whose ranges completeStoredRanges reads (its item's copy names packages only). */
  storedRecord?: StoredRecordRef;
  nvdId: string | null;
  /**
   * A structured record's own vulnerability ids (its id and aliases, upper case): it is evidence
   * for those CVEs only, never for another CVE its text mentions. Empty for prose items.
   */
  recordIds?: string[];
  /** An NVD record's vulnerable CPE criteria (empty when NVD has not analysed it yet: then its text is prose). */
  nvdCriteria?: NvdCriterion[];
  /** A KEV entry's vendorProject/product, as products without versions. */
  kevProducts?: AdvisoryProduct[];
  /** CISA KEV listing of the CVE, when this item is its catalog entry. */
  kev: NonNullable<VulnerabilityRecord['exploited']> | null;
  techniques: string[];
}

/**
 * The handle for this file's raw reads: their columns are named in camelCase by their own `AS`,
 * so the CamelCasePlugin's copy of every row (a key rename and an array copy per column, ~5 % of
 * a first pass's Node time in the hunt-osv bench) would change nothing. Same connection, same transaction.
 */
export const raw = (db: Queryable): Queryable => db.withoutPlugins();

const KNOWN_EXPLOITED = /\b(known[- ]exploited|exploited in the wild|actively exploited|under active exploitation|CISA KEV|KEV catalog)\b/i;
// Every phrase above contains one of these: a plain scan that spares most texts (none say it) the alternation at every word boundary.
const EXPLOIT_HINT = /exploit|kev/i;

export async function loadThreats(db: Queryable, organizationId: string, threatIds: string[]): Promise<ThreatForAssessment[]> {
  const { rows } = await sql<ThreatForAssessment & { prevId: string | null; prevRelevancy: number; prevExposure: number; prevState: string; prevCoverage: string; prevFound: boolean; prevFoundCount: number }>`
    SELECT t.id, t.canonical_key AS "canonicalKey", t.title, t.latest_run_id AS "latestRunId", t.active_hunt_alert_id AS "activeHuntAlertId", t.latest_alert_id AS "latestAlertId", t.dismissed_at IS NOT NULL AS dismissed,
           r.id AS "prevId", r.relevancy_score AS "prevRelevancy", r.exposure_score AS "prevExposure", r.exposure_state AS "prevState",
           r.coverage_state AS "prevCoverage", r.has_found_ioc AS "prevFound",
           COALESCE(jsonb_array_length(r.exposure_story->'iocFindings'), 0) AS "prevFoundCount"
    FROM hunt_threats t LEFT JOIN hunt_threat_runs r ON r.id = t.latest_run_id
    WHERE t.organization_id = ${organizationId} AND t.id = ANY(${threatIds}::uuid[])`.execute(raw(db));
  return rows.map((r) => ({
    id: r.id,
    canonicalKey: r.canonicalKey,
    title: r.title,
    latestRunId: r.latestRunId,
    activeHuntAlertId: r.activeHuntAlertId,
    latestAlertId: r.latestAlertId,
    dismissed: r.dismissed,
    prev: r.prevId ? { id: r.prevId, relevancyScore: r.prevRelevancy, exposureScore: r.prevExposure, exposureState: r.prevState, coverageState: r.prevCoverage, hasFoundIoc: r.prevFound, foundIocCount: r.prevFoundCount } : null,
  }));
}

/**
 * The evidence of existing threats (a reassessment): their links, each link's item. Both reads
 * are fenced per key (OFFSET 0), so each is an index probe whatever the statistics say: the
 * links by the primary key's threat_id prefix, the item by its primary key. Joined plainly, a
 * table whose statistics predate a large sync misleads the plan: `threat_id = ANY(500 ids)`
 * with no statistics on threat_id reads as "every row" (a sequential scan of all the links),
 * and the organization's items as a few rows worth hashing (see loadItemsOf).
 */
export async function loadItems(db: Queryable, organizationId: string, threatIds: string[]): Promise<ItemEvidence[]> {
  const { rows } = await sql<ItemEvidenceRow>`
    SELECT i.*, l.threat_id AS "threatId"
    FROM (SELECT DISTINCT unnest(${threatIds}::uuid[]) AS id) t
    CROSS JOIN LATERAL (
      SELECT l.threat_id, l.item_id FROM hunt_threat_items l
      WHERE l.threat_id = t.id AND l.organization_id = ${organizationId} OFFSET 0
    ) l
    ${itemOfLink(organizationId)}
    -- A fixed order: the exposure story lists a threat's reports in it, and the same evidence must
    -- read the same (a join's order follows the plan and the heap, which vary between runs).
    ORDER BY l.threat_id, i.id`.execute(raw(db));
  return rows.map(evidenceOfRow);
}

/**
 * The same evidence for threats not written yet (createAssessedThreats: a pass's new threats are
 * planned before they and their links are inserted), by (threat, item) pairs.
 *
 * Each pair's item is read by its primary key inside a fenced LATERAL (itemOfLink). Joined
 * plainly, the planner judged the organization's items from intel_items' statistics, which in a
 * first pass are those of before the sync (the table "empty"): it hashed every item of the
 * organization for each batch (20,000 rows, 10,000 pages and a temp spill per 500 threats: 0.57 s
 * a batch, 1.19 ms of statement time per record, where a join from the links costs ~0.13 ms).
 * One probe per pair does not depend on those statistics.
 */
export async function loadItemsOf(db: Queryable, organizationId: string, pairs: ReadonlyArray<readonly [threatId: string, itemId: string]>): Promise<ItemEvidence[]> {
  if (pairs.length === 0) return [];
  const { rows } = await sql<ItemEvidenceRow>`
    SELECT i.*, l.threat_id AS "threatId"
    FROM unnest(${pairs.map((p) => p[0])}::uuid[], ${pairs.map((p) => p[1])}::uuid[]) AS l(threat_id, item_id)
    ${itemOfLink(organizationId)}
    ORDER BY l.threat_id, i.id`.execute(raw(db));
  return rows.map(evidenceOfRow);
}

/** The item of each row `l` (threat_id, item_id), by its primary key, fenced (OFFSET 0) so the probe is planned per row. */
const itemOfLink = (organizationId: string) => sql`CROSS JOIN LATERAL (
      SELECT ${ITEM_COLUMNS} FROM intel_items i ${STORED_PARTS}
      WHERE i.id = l.item_id AND i.organization_id = ${organizationId} OFFSET 0
    ) i`;

type ItemEvidenceRow = ItemRow & { sourceId: string; storedAffected: AffectedPackage[] | null; storedConfigurations: unknown; storedExploited: VulnerabilityRecord['exploited'] | null; stored: boolean };

// An OSV item's copy names its packages without their ranges (the vulnerability store holds
// them): completeStoredRanges reads the ranges of the records an asset can match. A CSAF, NVD or
// KEV item's structured part (packages with ranges, CPE configurations, KEV listing) is read from
// the store here, by its primary key (migration 0159): few such items link to a batch's threats,
// and CSAF packages named by CPE only cannot be told from their copy. An item the store lacks
// (stored before 0159) has its whole copy.
const ITEM_COLUMNS = sql`i.id, i.title, i.source_id AS "sourceId",
           concat_ws(E'\n', i.title, i.summary, i.tldr, left(i.content_text, 20000)) AS text,
           i.published_at AS "publishedAt", i.tags, i.affected_products AS "affectedProducts", i.classification->'attack' AS attack,
           i.vulnerability,
           i.status = 'retracted' AS retracted,
           v.vuln_id IS NOT NULL AS stored, v.affected AS "storedAffected", v.configurations AS "storedConfigurations", v.exploited AS "storedExploited"`;
const STORED_PARTS = sql`LEFT JOIN intel_vulnerabilities v ON i.vulnerability->>'format' IN ('csaf', 'nvd', 'cisa_kev')
      AND v.organization_id = i.organization_id AND v.source_id = i.source_id AND v.vuln_id = i.external_id`;

function evidenceOfRow(r: ItemEvidenceRow): ItemEvidence {
  const evidence = itemEvidenceOf(r.stored && r.vulnerability ? { ...r, vulnerability: withStoredParts(r.vulnerability, r.storedAffected, r.storedConfigurations, r.storedExploited) } : r);
  if (evidence.structured && r.vulnerability?.format === 'osv') evidence.storedRecord = { sourceId: r.sourceId, vulnId: r.vulnerability.id };
  return evidence;
}

/** A CSAF, NVD or KEV item's copy with the structured parts the store holds put back: the record as its connector gave it. */
function withStoredParts(copy: VulnerabilityRecord, affected: AffectedPackage[] | null, configurations: unknown, exploited: VulnerabilityRecord['exploited'] | null): VulnerabilityRecord {
  return {
    ...copy,
    affected: affected ?? copy.affected,
    ...(configurations !== null ? { configurations } : {}),
    ...(exploited !== null ? { exploited } : {}),
  };
}

/**
 * Puts the stored ranges (the vulnerability store, intel's storedPackagesOf) into the OSV records
 * among these items that name a package of `software` (the batch's software by package identity,
 * softwareByPackageKeys), in one statement for the batch; each record once however many threats
 * it is linked to. A record that names no package an asset runs keeps its item's copy (names
 * only): matching reads a record's ranges only for a package some software has, so its verdicts
 * are the same, and neither PostgreSQL nor Node reads ranges nothing can match (in an export of
 * hundreds of thousands of records, most; in the bench's, three in four). `software` null: the
 * records whose copy names no package at all, which cannot tell what they would match, read
 * before the software is (their packages then name it). A record the store does not hold (an
 * item stored before the store existed, migration 0154) keeps its item's copy, which is whole.
 */
export async function completeStoredRanges(db: Queryable, organizationId: string, items: readonly ItemEvidence[], software: readonly InventorySoftware[] | null): Promise<void> {
  const runs = new Set(software?.map((s) => purlKey(s.purl)));
  const matchable = items.filter((i) => i.storedRecord && i.structured && (software === null ? i.structured.packages.length === 0 : packageKeysOf([i.structured]).some((k) => runs.has(k))));
  if (matchable.length === 0) return;
  const refs = new Map(matchable.map((i) => [storedRecordKey(i.storedRecord!), i.storedRecord!]));
  const stored = await storedPackagesOf(db, organizationId, [...refs.values()]);
  for (const i of matchable) {
    const packages = stored.get(storedRecordKey(i.storedRecord!));
    if (packages) i.structured!.packages = packages;
    i.storedRecord = undefined; // read: its packages are the store's (or its copy's, the store lacking it)
  }
}

/** An intel item as the assessment reads it (one linked row of loadItems). */
export interface ItemRow { id: string; threatId: string; title: string; text: string; publishedAt: Date | null; tags: string[]; affectedProducts: unknown; attack: unknown; vulnerability: VulnerabilityRecord | null; retracted: boolean }

/** The evidence of one linked item (pure: `npm run eval:hunt` reads fixtures through it too). */
export function itemEvidenceOf(r: ItemRow): ItemEvidence {
  return {
    id: r.id,
    threatId: r.threatId,
    title: r.title,
    text: r.text,
    publishedAt: r.publishedAt,
    knownExploited: (EXPLOIT_HINT.test(r.text) && KNOWN_EXPLOITED.test(r.text)) || r.tags.some((t) => /kev|exploited/i.test(t)),
    retracted: r.retracted,
    affectedProducts: (Array.isArray(r.affectedProducts) ? r.affectedProducts : []).map((p: { vendor?: string; product?: string; versions?: string[] }) => ({
      vendor: p.vendor ?? '',
      product: p.product ?? '',
      versions: Array.isArray(p.versions) ? p.versions.map(String) : [],
      via: 'advisory' as const,
    })).filter((p) => p.product),
    // Package ranges (OSV, CSAF); a KEV entry names no package, only that the CVE is exploited.
    structured: (r.vulnerability?.format === 'osv' || r.vulnerability?.format === 'csaf') && !r.vulnerability.withdrawn
      ? { advisoryId: r.vulnerability.id, evidence: r.vulnerability.format, packages: (r.vulnerability.affected ?? []) as AffectedPackage[] }
      : null,
    kev: r.vulnerability?.exploited ?? null,
    // An NVD record: its product list comes from the record's CPE configurations (with ranges).
    nvdId: r.vulnerability?.format === 'nvd' ? r.vulnerability.id : null,
    recordIds: r.vulnerability?.id ? [r.vulnerability.id, ...(r.vulnerability.aliases ?? [])].map((x) => String(x).toUpperCase()) : [],
    nvdCriteria: r.vulnerability?.format === 'nvd' && !r.vulnerability.withdrawn ? nvdCriteria(r.vulnerability.configurations) : [],
    kevProducts: r.vulnerability?.format === 'cisa_kev' ? kevProducts(r.vulnerability.exploited, r.text) : [],
    techniques: classificationSummary({ attack: r.attack }).techniques.map((t) => t.id),
  };
}

export interface OrgInventoryKeys {
  /** Every product key of the organization's software. */
  productKeys: Set<string>;
  /** Product keys whose every entry is a package (has a purl): prose must name them as packages. */
  packageOnlyKeys: Set<string>;
  /** Package identity (purl key) → the purls stored under it (of the identities a batch names). */
  purlsByKey: Map<string, string[]>;
}

/** The organization's product keys, for matching prose (the package identities a batch needs are read by softwareByPackageKeys). */
export async function orgInventoryKeys(db: Queryable, organizationId: string): Promise<Omit<OrgInventoryKeys, 'purlsByKey'>> {
  const keys = await sql<{ k: string; packageOnly: boolean }>`SELECT product_key AS k, bool_and(purl IS NOT NULL) AS "packageOnly" FROM hunt_asset_software WHERE organization_id = ${organizationId} GROUP BY product_key`.execute(db);
  return { productKeys: new Set(keys.rows.map((r) => r.k)), packageOnlyKeys: new Set(keys.rows.filter((r) => r.packageOnly).map((r) => r.k)) };
}

const SOFTWARE_COLUMNS = sql`a.id AS "assetId", a.identifier, a.kind, a.platform, a.internet_facing AS "internetFacing", a.criticality,
           s.vendor, s.product, s.version, s.product_key AS "productKey", s.purl, s.cpe`;

/**
 * The software of these package identities (purl keys): an index lookup of their names
 * (hunt_purl_name, migration 0111), then the exact identity. What a structured advisory is
 * matched against, without reading the organization's whole inventory.
 */
export async function softwareByPackageKeys(db: Queryable, organizationId: string, keys: readonly string[]): Promise<InventorySoftware[]> {
  if (keys.length === 0) return [];
  const wanted = new Set(keys);
  const { rows } = await sql<InventorySoftware>`
    SELECT ${SOFTWARE_COLUMNS}
    FROM hunt_asset_software s JOIN hunt_assets a ON a.id = s.asset_id
    WHERE s.organization_id = ${organizationId} AND s.purl IS NOT NULL AND hunt_purl_name(s.purl) = ANY(${[...new Set(keys.map(purlNameOfKey))]}::text[])`.execute(raw(db));
  return rows.filter((r) => wanted.has(purlKey(r.purl)!));
}

export async function softwareByKeys(db: Queryable, organizationId: string, keys: string[]): Promise<InventorySoftware[]> {
  if (keys.length === 0) return [];
  const { rows } = await sql<InventorySoftware>`
    SELECT ${SOFTWARE_COLUMNS}
    FROM hunt_asset_software s JOIN hunt_assets a ON a.id = s.asset_id
    WHERE s.organization_id = ${organizationId} AND s.product_key = ANY(${keys}::text[])`.execute(raw(db));
  return rows;
}

export async function indicatorsOf(db: Queryable, organizationId: string, itemIds: string[]): Promise<Array<ThreatIndicator & { itemId: string }>> {
  if (itemIds.length === 0) return [];
  return db
    .selectFrom('intelIndicators')
    .select(['id', 'itemId', 'type', 'value', 'normalizedValue', 'status', 'lastCheckedAt'])
    .where('organizationId', '=', organizationId)
    .where('itemId', 'in', itemIds)
    .execute();
}

export async function sightingsOf(db: Queryable, organizationId: string, itemIds: string[]) {
  if (itemIds.length === 0) return [];
  const { rows } = await sql<{ indicatorId: string; value: string; source: string; assetIdentifier: string | null; observedAt: Date }>`
    SELECT i.id AS "indicatorId", s.value, s.source, s.asset_identifier AS "assetIdentifier", s.observed_at AS "observedAt"
    FROM intel_indicators i JOIN hunt_sightings s ON s.organization_id = i.organization_id AND s.normalized_value = i.normalized_value
    WHERE i.organization_id = ${organizationId} AND i.item_id = ANY(${itemIds}::uuid[])
    ORDER BY s.observed_at`.execute(db);
  return rows;
}

/** Indicator types the organization reported sightings of in the 30 days before `now`: its telemetry. */
export async function telemetryTypes(db: Queryable, organizationId: string, now: Date): Promise<Set<string>> {
  const { rows } = await sql<{ type: string }>`SELECT DISTINCT type FROM hunt_sightings WHERE organization_id = ${organizationId} AND observed_at > ${new Date(now.getTime() - 30 * 86_400_000)}`.execute(db);
  return new Set(rows.map((r) => r.type));
}

export async function detectionsOf(db: Queryable, organizationId: string, threatIds: string[]): Promise<Array<CoveringDetection & { threatId: string }>> {
  const rows = await db
    .selectFrom('huntDeliverables')
    .select(['id', 'threatId', 'intent', 'targetProduct', 'lifecycleStatus', 'pinnedIocs'])
    .where('organizationId', '=', organizationId)
    .where('threatId', 'in', threatIds.length ? threatIds : ['00000000-0000-0000-0000-000000000000'])
    .where('supersededById', 'is', null)
    .execute();
  return rows.map((r) => ({ id: r.id, threatId: r.threatId, name: r.intent, kind: 'rule_proposal' as const, platform: r.targetProduct, lifecycleStatus: r.lifecycleStatus, pinnedValues: r.pinnedIocs.map((p) => p.value) }));
}
