import { z } from 'zod';
import { COVERAGE_STATES, MAX_WINDOW_DAYS, WINDOW_PATTERN, windowDays } from './coverage.fns.js';
import { LayerView } from './navigator.schemas.js';
import { EVIDENCE_STATES } from './coverage-evidence.fns.js';
import { NO_INTEL_REASONS } from './coverage-intel-status.fns.js';

export const CoverageState = z.enum(COVERAGE_STATES);

export const CoverageQuery = z.object({
  window: z.string().regex(new RegExp(WINDOW_PATTERN), 'must be a number of days, 1d to 3650d (90d)')
    .refine((w) => windowDays(w) <= MAX_WINDOW_DAYS, 'must be a number of days, 1d to 3650d (90d)').default('90d')
    .describe('How far back intel counts, in days (`90d`; at most 3650d)'),
  actor: z.string().trim().max(200).optional().describe('Only intel naming this actor (a name or an ATT&CK alias: `APT28`, `Fancy Bear`)'),
  malware: z.string().trim().max(200).optional().describe('Only intel naming this malware or tool (a name or an ATT&CK alias)'),
});
export const CoverageSummaryQuery = CoverageQuery.extend({
  top: z.coerce.number().int().min(1).max(50).default(10).describe('How many top gaps'),
});
export const LayerQuery = CoverageQuery.extend({ view: LayerView.default('coverage') });
export const TechniqueParams = z.object({ techniqueId: z.string().trim().toUpperCase().regex(/^T\d{4}(\.\d{3})?$/, 'must be an ATT&CK technique id (T1059)') });

const External = z.object({ layer: z.string(), techniqueId: z.string(), score: z.number().nullable(), comment: z.string() });
const Detections = z.object({ total: z.number().int(), stable: z.number().int(), test: z.number().int(), experimental: z.number().int(), deprecated: z.number().int() })
  .describe('Detections naming the technique or a sub-technique of it, by status');
const Intel = z.object({ items: z.number().int(), actors: z.number().int(), malware: z.number().int(), lastSeenAt: z.string().nullable() })
  .describe('Intel items of the window naming the technique (or a sub-technique), the distinct actors and malware they name, the most recent');
const Named = z.object({ name: z.string(), items: z.number().int() });
const ItemRef = z.object({ id: z.string(), title: z.string(), url: z.string().nullable(), seenAt: z.string() });

const InCatalog = z.boolean().describe(
  'false: the ATT&CK catalog (see `catalog`) does not know this id, e.g. a technique of a newer ATT&CK release named by a SigmaHQ rule (`attack.t1685`): it counts under the id named, without a name or tactics, until a sync of the built-in MITRE ATT&CK source refreshes the catalog',
);
export const CatalogInfo = z.object({
  version: z.string().describe('ATT&CK release of the catalog shipped with Rampart (`18.1`)'),
  releasedAt: z.string().describe('Release date of the shipped catalog'),
  refreshedAt: z.string().nullable().describe('When a sync of the built-in MITRE ATT&CK source last refreshed the catalog (null: never; the shipped catalog alone)'),
  syncedEntries: z.number().int().describe('Catalog entries (techniques, groups, software) refreshed by that source'),
}).describe('The ATT&CK catalog coverage names techniques and tactics from');

export const TechniqueCoverage = z.object({
  techniqueId: z.string(),
  name: z.string(),
  tactics: z.array(z.string()),
  inCatalog: InCatalog,
  state: CoverageState,
  detections: Detections,
  intel: Intel,
  external: z.array(External).describe('Declared coverage of imported Navigator layers (shown apart: it does not change the state)'),
  evidence: z.enum(EVIDENCE_STATES).describe(
    '`matched`: a detection covering the technique matched events in the window (events sent to `POST /api/events`); `paper`: detections cover it but none matched anything in the window; `none`: no detection covers it (a gap)',
  ),
  matches: z.object({
    detections: z.number().int().describe('Detections covering the technique that matched events in the window'),
    events: z.number().int().describe('Events they matched'),
    lastMatchedAt: z.string().nullable(),
  }),
}).meta({ id: 'TechniqueCoverage' });

export const IntelStatus = z.object({
  comparable: z.boolean().describe('false: the intel of the window (and filter) names no technique, so there is nothing to compare the detections with: no gap does not mean covered'),
  reason: z.enum(NO_INTEL_REASONS).nullable().describe(
    'Why there is nothing to compare with (null when `comparable`): `sources_failing` enabled sources failed their last sync (listed in `failingSources`), `no_sources` no source is enabled, `never_synced` no enabled source has synced yet, `no_techniques` the sources synced but their intel of the window names no ATT&CK technique',
  ),
  message: z.string().nullable().describe('The reason as a sentence (`No intel to compare with: 1 source of 1 failed to sync (…)`), null when `comparable`'),
  techniques: z.number().int().describe('Techniques the intel of the window (and filter) names'),
  sources: z.object({ enabled: z.number().int().describe('Sources enabled for the organization (its own and the built-in ones it subscribes to)'), synced: z.number().int().describe('Enabled sources whose last sync succeeded') }),
  failingSources: z.array(z.object({ id: z.string(), name: z.string(), lastError: z.string(), lastFailedAt: z.string().nullable() }))
    .describe('Enabled sources whose last sync failed, with the error it left, most recent first (listed whether or not there is intel to compare with)'),
}).describe('Whether there is intel to compare the detections with, and why not (issue 47 item 12)').meta({ id: 'CoverageIntelStatus' });

export const CoverageReport = z.object({
  window: z.string(),
  since: z.string(),
  actor: z.string().nullable(),
  malware: z.string().nullable(),
  summary: z.object({
    covered: z.number().int(), coveredExperimentalOnly: z.number().int(), gap: z.number().int(), unused: z.number().int(),
    matched: z.number().int().describe('Techniques whose detections matched events in the window (`evidence: matched`)'),
    onPaper: z.number().int().describe('Techniques detections cover that none of them matched in the window (`evidence: paper`)'),
  }),
  tactics: z.array(z.object({
    tactic: z.string(), name: z.string(), techniques: z.number().int().describe('Techniques of the tactic in the ATT&CK catalog'),
    covered: z.number().int(), coveredExperimentalOnly: z.number().int(), gap: z.number().int(), unused: z.number().int(),
  })),
  techniques: z.array(TechniqueCoverage).describe('Every technique named by intel in the window or by a detection, most intel items first'),
  topGaps: z.array(TechniqueCoverage.extend({ actors: z.array(Named), malware: z.array(Named), recentItems: z.array(ItemRef) }))
    .describe('Gaps ranked by items, then distinct actors, then most recent sighting; with the actors, malware and latest items behind each'),
  intelStatus: IntelStatus,
  catalog: CatalogInfo,
});

export const TechniqueDetail = z.object({
  techniqueId: z.string(),
  name: z.string(),
  tactics: z.array(z.string()),
  inCatalog: InCatalog,
  catalog: CatalogInfo,
  state: CoverageState.nullable().describe('null: neither intel of the window nor any detection names it'),
  detections: z.array(z.object({ id: z.string(), name: z.string(), ruleId: z.string().nullable(), status: z.string(), severity: z.string(), attackTechniques: z.array(z.string()), updatedAt: z.string() })),
  intel: Intel.extend({ actorNames: z.array(Named), malwareNames: z.array(Named), recentItems: z.array(ItemRef) }),
  external: z.array(External),
});

export const LayerSummary = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  techniques: z.number().int().describe('Techniques the layer declares covered'),
  createdAt: z.string(),
  updatedAt: z.string(),
}).meta({ id: 'CoverageLayer' });
export const LayerList = z.object({ layers: z.array(LayerSummary) });
export const LayerImportResult = z.object({
  layer: LayerSummary,
  replaced: z.boolean().describe('A layer of the same name was replaced'),
  unknownTechniques: z.array(z.string()).describe('Technique ids of the layer the ATT&CK catalog does not know (stored, shown nowhere)'),
});
