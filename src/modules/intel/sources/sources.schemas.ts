import { Cron } from 'croner';
import { z } from 'zod';
import { endpointUrl } from '../../../platform/http/url-schemas.js';

/** Intel sources: the API contract's intel source fields and endpoints (docs/intel.md). */
export const SyncJobSchema = z
  .object({
    jobId: z.uuid(),
    status: z.enum(['pending', 'running', 'succeeded', 'failed']).describe('pending → running → succeeded | failed (a failed attempt that will be retried returns to pending)'),
    queuedAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    updatedAt: z.string(),
    attemptCount: z.number().int(),
    error: z.string().nullable(),
  })
  .meta({ id: 'IntelSyncJob' });
export type SyncJobDto = z.infer<typeof SyncJobSchema>;

export const SourceSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    displayName: z.string(),
    description: z.string(),
    kind: z.enum(['rss', 'api']),
    apiType: z.enum(['misp', 'misp_feed', 'taxii', 'osv', 'cisa_kev', 'epss', 'nvd', 'csaf']).nullable().describe('For kind `api`: `misp` (MISP REST API), `misp_feed` (static MISP feed directory), `taxii` (TAXII 2.1), `osv` (OSV records: a zip as OSV\'s all.zip, a JSON array or NDJSON), `cisa_kev` (CISA\'s Known Exploited Vulnerabilities catalog JSON), `epss` (FIRST\'s EPSS scores CSV, gzip or plain: scores on threats, no items), `nvd` (NVD CVE API 2.0 JSON), `csaf` (a CSAF 2.0 provider-metadata.json, ROLIE feed or document)'),
    isBuiltIn: z.boolean(),
    feedUrl: z.string().nullable(),
    serverUrl: z.string().nullable(),
    collectionId: z.string().nullable().describe('TAXII collection to read; null = every readable collection'),
    authType: z.enum(['bearer', 'basic', 'header']).nullable(),
    organizationId: z.uuid().nullable().describe('null for built-in sources (shared by every organization)'),
    createdBy: z.uuid().nullable(),
    hasApiKey: z.boolean().describe('Whether a credential is stored; it is never returned'),
    enabled: z.boolean().describe('Effective: sourceEnabled and subscriptionEnabled'),
    sourceEnabled: z.boolean(),
    subscriptionEnabled: z.boolean(),
    scheduleCron: z.string(),
    maxEntries: z.number().int(),
    lastFetchedAt: z.string().nullable(),
    lastStatus: z.enum(['ok', 'not_modified', 'error']).nullable().describe('`ok`: fetched and stored; `not_modified`: the server said nothing changed (ETag/Last-Modified); `error`: see lastError'),
    lastError: z.string().nullable(),
    itemCountLast24h: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
    syncJob: SyncJobSchema.nullable().describe('The latest sync job, if any'),
  })
  .meta({ id: 'IntelSource' });
export type SourceDto = z.infer<typeof SourceSchema>;

export const SourceList = z.object({ sources: z.array(SourceSchema) });

const httpUrl = endpointUrl();
const cron = z
  .string()
  .trim()
  .max(120)
  .refine((v) => {
    try {
      new Cron(v, { paused: true });
      return v.split(/\s+/).length === 5;
    } catch {
      return false;
    }
  }, 'must be a 5-field cron expression, e.g. "*/30 * * * *"');

/** The cap of maxEntries: sources read into memory, and OSV, whose export is streamed (docs/hunt.md). */
export const MAX_ENTRIES = 10_000;
export const MAX_ENTRIES_STREAMED = 10_000_000;

const sourceFields = {
  name: z.string().trim().min(1).max(255),
  displayName: z.string().trim().min(1).max(255).optional(),
  description: z.string().max(2000).optional(),
  feedUrl: httpUrl.optional(),
  serverUrl: httpUrl.optional(),
  apiType: z.enum(['misp', 'misp_feed', 'taxii', 'osv', 'cisa_kev', 'epss', 'nvd', 'csaf']).optional(),
  collectionId: z.string().trim().min(1).max(255).optional(),
  authType: z.enum(['bearer', 'basic', 'header']).optional().describe('taxii and misp_feed: `bearer` (default when apiKey is set) or `basic` (with username); misp: always its Authorization key'),
  username: z.string().min(1).max(255).optional(),
  apiKey: z.string().min(1).max(4096).optional().describe('Write-only credential (MISP key, TAXII token or password), sent only to serverUrl\'s origin: an update moving serverUrl to another origin (scheme, host, port) must give it again (400 naming `apiKey`)'),
  enabled: z.boolean().optional(),
  scheduleCron: cron.optional(),
  maxEntries: z.number().int().min(1).max(MAX_ENTRIES_STREAMED).optional().describe(`Entries read per sync: at most ${MAX_ENTRIES} (${MAX_ENTRIES_STREAMED} for apiType osv, whose export is streamed; osv defaults to that, every record)`),
};

export const CreateSourceBody = z
  .strictObject({ kind: z.enum(['rss', 'api']), ...sourceFields })
  .superRefine((b, ctx) => {
    if (b.kind === 'rss') {
      if (!b.feedUrl) ctx.addIssue({ code: 'custom', path: ['feedUrl'], message: 'feedUrl is required for kind "rss"' });
      for (const f of ['serverUrl', 'apiType', 'apiKey', 'collectionId', 'authType', 'username'] as const) {
        if (b[f] !== undefined) ctx.addIssue({ code: 'custom', path: [f], message: `${f} applies to kind "api" only` });
      }
    } else {
      if (!b.serverUrl) ctx.addIssue({ code: 'custom', path: ['serverUrl'], message: 'serverUrl is required for kind "api"' });
      if (!b.apiType) ctx.addIssue({ code: 'custom', path: ['apiType'], message: 'apiType is required for kind "api" (misp, misp_feed, taxii, osv, cisa_kev, epss, nvd or csaf)' });
      if (b.feedUrl !== undefined) ctx.addIssue({ code: 'custom', path: ['feedUrl'], message: 'feedUrl applies to kind "rss" only' });
      if (b.apiType === 'misp' && !b.apiKey) ctx.addIssue({ code: 'custom', path: ['apiKey'], message: 'apiKey (the MISP automation key) is required for apiType "misp"' });
      if (b.authType === 'basic' && !b.username) ctx.addIssue({ code: 'custom', path: ['username'], message: 'username is required when authType is "basic"' });
    }
    if (b.maxEntries !== undefined && b.maxEntries > MAX_ENTRIES && b.apiType !== 'osv') ctx.addIssue({ code: 'custom', path: ['maxEntries'], message: `must be at most ${MAX_ENTRIES} (only apiType "osv", streamed, reads up to ${MAX_ENTRIES_STREAMED})` });
  });
export type CreateSourceInput = z.infer<typeof CreateSourceBody>;

export const UpdateSourceBody = z
  .strictObject({ ...sourceFields, name: sourceFields.name.optional() })
  .refine((b) => Object.keys(b).length > 0, { message: 'Give at least one field to change' });
export type UpdateSourceInput = z.infer<typeof UpdateSourceBody>;

export const SyncResult = z.object({ source: SourceSchema, jobId: z.uuid() });
export { DeleteResult } from '../../../platform/http/responses.js';

export const CustomFeedSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    displayName: z.string(),
    feedUrl: z.string(),
    organizationId: z.uuid(),
    createdBy: z.uuid().nullable(),
    enabled: z.boolean(),
    scheduleCron: z.string(),
    maxEntries: z.number().int(),
    lastFetchedAt: z.string().nullable(),
    lastStatus: z.enum(['ok', 'not_modified', 'error']).nullable(),
    lastError: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'CustomRssFeed' });
export type CustomFeedDto = z.infer<typeof CustomFeedSchema>;
export const CustomFeedList = z.object({ feeds: z.array(CustomFeedSchema) });
export const FeedSyncResult = z.object({ feed: CustomFeedSchema, jobId: z.uuid() });
