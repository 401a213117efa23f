import { z } from 'zod';

/** Intel items (the API contract's intel item fields) and the /items listing (docs/intel.md). */
const Ioc = z.object({
  value: z.string(),
  type: z.string(),
  normalizedValue: z.string(),
  firstSeen: z.string(),
  lastSeen: z.string(),
  ttlDays: z.number().int(),
  confidence: z.number(),
});
const Passage = z.object({ text: z.string(), sourceUrl: z.string(), charSpan: z.object({ start: z.number().int(), end: z.number().int() }) });
const Named = z.object({ name: z.string(), confidence: z.number(), aliases: z.array(z.string()) });

/** The indicator lists of the API contract's intel item, then Rampart's extension lists (documented in docs/intel.md): `emails`. */
export const IOC_LISTS = ['ipv4', 'ipv6', 'domains', 'urls', 'hashes', 'files', 'registryKeys', 'processes', 'certs', 'cloudIds', 'mobileIds', 'emails'] as const;
export type IocList = (typeof IOC_LISTS)[number];

export const IntelItemSchema = z
  .object({
    id: z.uuid(),
    source: z.object({ url: z.string(), publisher: z.string(), publishTime: z.string(), language: z.string(), name: z.string(), license: z.string() }),
    event: z.object({ title: z.string(), confidence: z.number(), eventFirstSeen: z.string(), eventLastSeen: z.string() }),
    summary: z.string(),
    tldr: z.string(),
    abstract: z.string(),
    attackPath: z.array(z.string()),
    classification: z.object({
      attack: z.array(z.object({ technique: z.string(), subTechnique: z.string(), techniqueName: z.string(), evidenceRef: z.string(), confidence: z.number() })),
      killChain: z.array(z.string()),
      malware: z.array(Named),
      actor: z.array(Named),
      platforms: z.array(z.string()),
      mappings: z.array(z.object({ framework: z.string(), id: z.string(), confidence: z.number() })),
    }),
    affectedProducts: z.array(z.object({ versions: z.array(z.string()), vendor: z.string(), product: z.string(), confidence: z.number() })),
    iocs: z
      .object(Object.fromEntries(IOC_LISTS.map((k) => [k, z.array(Ioc)])) as Record<IocList, z.ZodArray<typeof Ioc>>)
      .describe('The indicator lists of the API contract\'s intel item, plus `emails` (an extension: e-mail addresses, type `email`). Other types without a list (cryptocurrency wallets, onion hosts, ASNs, mutexes) are in `GET /iocs`'),
    provenance: z.object({ supportingPassages: z.array(Passage) }),
    version: z.number().int(),
    externalId: z.string(),
    lastUpdated: z.string(),
    createdAt: z.string(),
    addedToFeedAt: z.string(),
    canonicalKey: z.string(),
    duplicateOf: z.string(),
    tenantOverrides: z.unknown(),
    // Beyond the API contract's item fields: what the filters of GET /items act on, and what extraction dropped and why.
    sourceId: z.uuid(),
    severity: z.enum(['none', 'low', 'medium', 'high', 'critical']),
    status: z.enum(['active', 'corrected', 'retracted']),
    relevance: z.number().int().describe('0..100: how actionable the item is for hunting (see the README)'),
    cves: z.array(z.string()),
    droppedIndicators: z.array(z.object({ type: z.string(), value: z.string(), reason: z.string() })).describe('Candidates extraction rejected, with the reason: nothing is dropped silently'),
  })
  .meta({ id: 'IntelItem' });
export type IntelItemDto = z.infer<typeof IntelItemSchema>;

const TextSpan = { start: z.number().int().describe('Offset of the first character (UTF-16 code units)'), end: z.number().int().describe('Offset after the last character') };

/** GET /items/{id} only: the stored text with each indicator and each rejected candidate at its exact span. */
export const IntelItemDetailSchema = IntelItemSchema.extend({
  annotatedText: z
    .object({
      text: z.string().describe('The item\'s text as stored (plain text; the feed\'s HTML is never sent)'),
      indicators: z.array(z.object({ type: z.string(), value: z.string().describe('As written in the text (possibly defanged): text.slice(start, end)'), normalizedValue: z.string(), confidence: z.number(), ...TextSpan })),
      rejected: z.array(z.object({ type: z.string(), value: z.string(), reason: z.string().describe('Why extraction did not keep it'), ...TextSpan })),
    })
    .describe('Where each extracted indicator is in the text, every occurrence, and each near-miss extraction rejected with the reason'),
}).meta({ id: 'IntelItemDetail' });
export type IntelItemDetailDto = z.infer<typeof IntelItemDetailSchema>;

export const SEVERITIES = ['none', 'low', 'medium', 'high', 'critical'] as const;

export const ItemListQuery = z.strictObject({
  page: z.coerce.number().int().min(1).default(1).describe('Page number, ≥ 1'),
  perPage: z.coerce.number().int().min(1).max(100).default(20).describe('Page size, 1..100 (default 20)'),
  severity: z.enum(SEVERITIES).optional(),
  platform: z.string().trim().min(1).max(100).optional().describe('e.g. windows, linux, macos, cloud'),
  status: z.enum(['active', 'corrected', 'retracted']).optional(),
  source: z.string().trim().min(1).max(255).optional().describe('Source id or name'),
  search: z.string().trim().min(1).max(500).optional().describe('Full-text search over title and content (websearch syntax: words, "phrases", -excluded, or), also with the term refanged (`evil[.]com` ↔ `evil.com`). A single indicator-like term (`evil.com`, `1.2.3.4`, a hash, a URL, defanged or not) also finds the items whose indicators have that normalized value. An item is searchable as soon as its sync stores it.'),
  minRelevance: z.coerce.number().int().min(0).max(100).optional().describe('Only items with relevance ≥ this (0..100)'),
  scope: z.enum(['relevant', 'all']).default('all').describe('`relevant`: only items with relevance ≥ 40 (or minRelevance), duplicates hidden; `all`: everything'),
});
export type ItemListQueryT = z.infer<typeof ItemListQuery>;

export const ItemList = z.object({
  items: z.array(IntelItemSchema),
  total: z.number().int(),
  page: z.number().int(),
  perPage: z.number().int(),
  hasNext: z.boolean(),
  validations: z
    .object({
      filters: z.record(z.string(), z.unknown()).describe('The filters as the server understood and applied them'),
      warnings: z.array(z.string()).describe('Anything in the query that was accepted but had no effect (e.g. an unknown source name)'),
    })
    .describe('How the query was read'),
  outputs: z
    .object({
      severityCounts: z.object(Object.fromEntries(SEVERITIES.map((s) => [s, z.number().int()])) as Record<(typeof SEVERITIES)[number], z.ZodNumber>),
      sources: z.array(z.object({ id: z.uuid(), name: z.string(), count: z.number().int() })),
    })
    .describe('Facets over the whole filtered set (not just this page): counts by severity and by source'),
});
