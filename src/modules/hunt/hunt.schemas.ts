import { z } from 'zod';
import { CRITICALITIES } from './inventory.fns.js';
import { BANDS, COVERAGE_STATES, EXPOSURE_STATES } from './exposure.fns.js';
import { LIFECYCLE } from './deliverables.store.js';

/** Hunt (the API spec's "Threat", "States and transitions" and "Hunt" endpoints; docs/hunt.md): inventory, sightings, threats and their views, settings. */

/** One software entry; imports check every row they write against it too. */
export const Software = z.strictObject({
  vendor: z.string().max(200).default(''),
  product: z.string().min(1).max(300),
  version: z.string().max(100).nullable().optional(),
  cpe: z.string().max(500).nullable().optional(),
  purl: z.string().max(1000).nullable().optional(),
});

/** The most software entries one asset holds (POST/PUT answer 400 beyond it, an import 413). */
export const MAX_SOFTWARE_PER_ASSET = 20_000;

/** An asset's own fields; imports check every asset they write against them too. */
export const AssetFields = z.strictObject({
  identifier: z.string().min(1).max(255).describe('Host name, application name…; unique in the organization (imports upsert by it)'),
  kind: z.string().min(1).max(50).default('other').describe('host, application, container, appliance, device, other…'),
  platform: z.string().max(50).nullable().default(null),
  internetFacing: z.boolean().default(false),
  criticality: z.enum(CRITICALITIES).default('medium'),
});

export const AssetInput = AssetFields.extend({ software: z.array(Software).max(MAX_SOFTWARE_PER_ASSET).default([]) });
export type AssetInputT = z.infer<typeof AssetInput>;

export const Asset = z.object({
  id: z.string(),
  organizationId: z.string(),
  identifier: z.string(),
  kind: z.string(),
  platform: z.string().nullable(),
  internetFacing: z.boolean(),
  criticality: z.string(),
  source: z.string().describe('api, csv, cyclonedx or osquery: what last wrote the asset'),
  software: z.array(z.object({ vendor: z.string(), product: z.string(), version: z.string().nullable(), cpe: z.string().nullable(), purl: z.string().nullable() })),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const AssetList = z.object({ assets: z.array(Asset), totalCount: z.number().int() });
export const AssetQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  search: z.string().max(200).optional().describe('Substring of the identifier or of a software product'),
});

export const ImportInput = z.discriminatedUnion('format', [
  z.strictObject({ format: z.literal('csv'), content: z.string().min(1).max(10_000_000).describe('identifier,kind,platform,internetFacing,vendor,product,version[,criticality]') }),
  z.strictObject({ format: z.literal('cyclonedx'), content: z.record(z.string(), z.unknown()).describe('The parsed CycloneDX JSON BOM'), assetIdentifier: z.string().min(1).max(255).optional().describe('Defaults to metadata.component.name') }),
  z.strictObject({ format: z.literal('osquery'), content: z.unknown().describe('osquery --json rows of programs, deb_packages or rpm_packages, or a result log line'), assetIdentifier: z.string().min(1).max(255).optional().describe('Defaults to the log line\'s hostIdentifier') }),
]);
export const ImportResult = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  errors: z.array(z.object({ row: z.number().int(), message: z.string() })),
});

export const SightingsInput = z.strictObject({
  sightings: z.array(z.strictObject({
    value: z.string().min(1).max(2048).describe('The observed value; defanged forms are accepted'),
    type: z.enum(['ipv4', 'ipv6', 'domain', 'url', 'md5', 'sha1', 'sha256', 'sha512', 'filename', 'email']).optional().describe('Guessed from the value when omitted'),
    source: z.string().min(1).max(200).describe('The log pipeline or tool that saw it (e.g. "zeek-dns")'),
    assetIdentifier: z.string().max(255).optional(),
    observedAt: z.iso.datetime({ offset: true }).optional().describe('Defaults to now'),
  })).min(1).max(5000),
});
export const SightingsResult = z.object({
  accepted: z.number().int(),
  matchedIndicators: z.number().int().describe('Sightings whose value is an indicator of the organization\'s intel'),
  reassessedThreats: z.number().int().describe('Threats reassessed (trigger `sighting`) because of a match'),
});

export const ThreatsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  status: z.enum(['new', 'relevant', 'not_relevant', 'dismissed']).optional(),
  minRelevancy: z.coerce.number().int().min(0).max(100).optional(),
  minEpss: z.coerce.number().min(0).max(1).optional().describe('Only threats whose CVE has an EPSS probability at least this (0..1; needs an `epss` source)'),
  exposureState: z.enum(EXPOSURE_STATES).optional(),
  search: z.string().max(200).optional().describe('Substring of the CVE id, title or an alias'),
  knownExploited: z.enum(['true', 'false']).optional().transform((v) => (v === undefined ? undefined : v === 'true'))
    .describe("`true`: only threats whose own CVE is in CISA's Known Exploited Vulnerabilities catalog (needs a `cisa_kev` source); `false`: only those that are not"),
});

const Json = z.record(z.string(), z.unknown());
export const Threat = z.object({
  id: z.string(), organizationId: z.string(), canonicalType: z.string(), canonicalKeyType: z.string(), canonicalKey: z.string(), title: z.string(),
  aliases: z.array(z.string()), actorId: z.string().nullable(), intelItemIds: z.array(z.string()),
  relevancyScore: z.number(), exposureScore: z.number(),
  exposureState: z.enum(EXPOSURE_STATES), coverageState: z.enum(COVERAGE_STATES), detectionEngineeringNote: z.string(),
  latestRunId: z.string().nullable(), assessmentRunningExecutionId: z.string().nullable(), latestAlertId: z.string().nullable(), activeHuntAlertId: z.string().nullable(),
  assessmentFailedAt: z.string().nullable(), dismissedAt: z.string().nullable(), dismissedByUserId: z.string().nullable(), dismissedReason: z.string().nullable(),
  status: z.enum(['new', 'relevant', 'not_relevant', 'dismissed']).describe('dismissed when explicitly dismissed, else derived: new (no run yet), relevant (relevancy ≥ 40 or vulnerable/compromised), not_relevant'),
  epss: z.object({ probability: z.number(), percentile: z.number(), modelVersion: z.string().nullable(), scoreDate: z.string().nullable() }).nullable()
    .describe('FIRST EPSS for the CVE (probability of exploitation in the next 30 days, and its percentile), from an `epss` intel source; null when none'),
  knownExploited: z.object({
    dateAdded: z.string().nullable().describe('When CISA added the CVE to the catalog (YYYY-MM-DD)'),
    dueDate: z.string().nullable().describe('The federal remediation due date (YYYY-MM-DD)'),
    ransomware: z.boolean().describe('`knownRansomwareCampaignUse` is "Known"'),
  }).nullable().describe("The threat's own CVE in CISA's Known Exploited Vulnerabilities catalog (a `cisa_kev` source); null when it is not listed"),
  createdAt: z.string(), updatedAt: z.string(),
});
export const ThreatList = z.object({ threats: z.array(Threat), totalCount: z.number().int() });

export const ThreatRun = z.object({
  id: z.string(), threatId: z.string(), runAt: z.string(), relevancyExecutionId: z.string().nullable(), exposureExecutionId: z.string().nullable(),
  relevancyHeadline: z.string(), kind: z.string(), trigger: z.string(), relevancyScore: z.number(), exposureScore: z.number(),
  relevancyExplanation: z.array(z.string()), exposureState: z.string(), coverageState: z.string(), hasFoundIoc: z.boolean(), hasBlockingGap: z.boolean(),
  exposureStory: Json, diff: Json,
});
export const Deliverable = z.object({
  id: z.string(), organizationId: z.string(), threatId: z.string(), executionId: z.string().nullable(), createdAt: z.string(), supersededById: z.string().nullable(),
  proposalId: z.string().nullable(), pullRequestUrl: z.string().nullable(), intent: z.string(), targetProduct: z.string(), targetLogSource: z.string(),
  kind: z.string(), pinning: z.string(), pinnedIocs: z.array(z.object({ type: z.string(), value: z.string() })), lifecycleStatus: z.enum(LIFECYCLE),
  content: z.string().describe('The Sigma rule(s), YAML'),
});
export const IntelItemSummary = z.object({
  id: z.string(), title: z.string(), publisher: z.string().nullable(), url: z.string().nullable(), publishedAt: z.string().nullable(), tldr: z.string(),
  sourceName: z.string(), summary: z.string(), eventFirstSeen: z.string().nullable(), eventLastSeen: z.string().nullable(),
  attackPath: z.array(z.string()), malware: z.array(z.string()), actors: z.array(z.string()), platforms: z.array(z.string()),
  attackTechniques: z.array(z.object({ id: z.string(), name: z.string() })), affectedProducts: z.array(z.object({ name: z.string(), versions: z.array(z.string()) })),
});
export const ActivityEvent = z.object({ id: z.string(), threatId: z.string(), runId: z.string().nullable(), createdAt: z.string(), kind: z.string(), actorType: z.string(), metadata: Json });
export const Capabilities = z.object({ canReadEvidence: z.boolean(), canReassess: z.boolean(), canTriage: z.boolean() });
export const ThreatMatch = z.object({
  assetId: z.string(), assetIdentifier: z.string(), product: z.string().describe('The product as the advisory names it (package name, or vendor and product)'),
  version: z.string().nullable(), purl: z.string().nullable(), cpe: z.string().nullable(),
  verdict: z.enum(['affected', 'not_affected', 'unknown']).describe('unknown: the version cannot be decided (no version installed, or prose gives no range)'),
  affectedRange: z.string().nullable().describe("The range the version falls in (affected); for a version of a structured record (OSV, CSAF) outside every range, the range of the version's own major line (the last introduced at or below it), or every range when none is on its line; else every range. In `>=a <b` notation"),
  fixedVersion: z.string().nullable(),
  evidence: z.enum(['osv', 'csaf', 'nvd', 'advisory-text', 'kev']).describe('Where the verdict comes from: a structured record of the CVE itself (OSV, CSAF, NVD CPE configurations, matched per NIST IR 7696) wins over prose, and prose over KEV\'s versionless vendor/product (`kev`, always `unknown`)'),
  advisoryId: z.string().describe('The structured record (GHSA-…, PYSEC-…), or the intel item id for prose'),
}).meta({ id: 'ThreatMatch' });
export const ThreatView = z.object({
  threat: Threat,
  matches: z.array(ThreatMatch).describe('The latest run\'s package matches, sorted: verdict (affected, unknown, not_affected), asset, product, version, advisory'),
  runs: z.array(ThreatRun), deliverables: z.array(Deliverable), intelItems: z.array(IntelItemSummary),
  alerts: z.array(Json).describe('Hunt alerts of the threat (each with the alert fields of the API contract), newest first; empty (and the two below null) for a caller without `alert.read`'), activeHuntAlert: Json.nullable(), latestAlert: Json.nullable(),
  activityEvents: z.array(ActivityEvent), capabilities: Capabilities,
});
export const DismissInput = z.strictObject({ reason: z.string().trim().min(1).max(2000) });
export const DeliverableParams = z.object({ id: z.uuid({ error: 'must be a UUID' }), deliverableId: z.uuid({ error: 'must be a UUID' }) });
export const DeliverableUpdate = z.strictObject({ lifecycleStatus: z.enum(LIFECYCLE), pullRequestUrl: z.url().max(2048).nullable().optional() });

export const AlertSettings = z.strictObject({
  minimumExposureBand: z.enum(BANDS).describe('low (score ≥ 1), medium (≥ 40), high (≥ 60), critical (≥ 80); default high'),
  alertOnCompromiseBelowThreshold: z.boolean().describe('Also alert when compromise_signal_found scores below the band; default true'),
  minimumEpssProbability: z.number().min(0).max(1).nullable().describe('Raise on the exposure band only when the CVE\'s EPSS probability is at least this (0..1); null (default): no EPSS gate. Threats without an EPSS score and compromise signals are never held back'),
  minimumEpssPercentile: z.number().min(0).max(1).nullable().describe('Same, on the EPSS percentile (0..1); null (default): no gate'),
  alertOnKnownExploited: z.boolean().describe("Alert on a CVE in CISA's KEV catalog (a `cisa_kev` source) whenever software it names is present or may be (exposure vulnerable_software_present or possibly_affected), whatever the band and the EPSS gate (`huntQualifiedBy: known_exploited`); default false"),
});
/** PUT body: the EPSS minimums and the KEV switch may be left out (null: no gate; false). */
export const AlertSettingsInput = AlertSettings.extend({
  minimumEpssProbability: AlertSettings.shape.minimumEpssProbability.default(null), minimumEpssPercentile: AlertSettings.shape.minimumEpssPercentile.default(null),
  alertOnKnownExploited: AlertSettings.shape.alertOnKnownExploited.default(false),
});
