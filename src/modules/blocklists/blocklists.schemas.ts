import { z } from 'zod';
import { LimitOffsetQuery } from '../../platform/http/pagination.js';
import { BLOCKABLE_TYPES, LIST_NAME_RE, TXT_GROUPS } from './blocklists.fns.js';

export const BlockableType = z.enum(BLOCKABLE_TYPES).describe('An indicator type a block list can hold (intel\'s names)');

const MAX_TTL_SECONDS = 10 * 365 * 24 * 3600;
const Ttl = z.number().int().min(60).max(MAX_TTL_SECONDS);

const ListName = z.string().regex(LIST_NAME_RE, 'must be 1..63 characters: lower-case letters, digits, "_", "-", starting with a letter or digit')
  .describe('Unique per organization; the list is served at `/blocklists/{name}.txt`');

export const BlocklistInput = z.object({
  name: ListName,
  description: z.string().max(2000).default(''),
  indicatorTypes: z.array(BlockableType).min(1).max(BLOCKABLE_TYPES.length).refine((a) => new Set(a).size === a.length, 'must not repeat a type')
    .describe('The types of entry the list accepts (an entry of another type is 400)'),
  defaultTtlSeconds: Ttl.nullable().default(null).describe('How long an entry stays when it is added without `expiresAt` or `ttlSeconds` (60 s..10 years); null: until removed'),
});
export type BlocklistInputT = z.infer<typeof BlocklistInput>;

export const BlocklistPatch = z.object({
  name: ListName.optional(),
  description: z.string().max(2000).optional(),
  indicatorTypes: BlocklistInput.shape.indicatorTypes.optional().describe('Entries already held of a type no longer listed stay until they expire or are removed'),
  defaultTtlSeconds: Ttl.nullable().optional().describe('Applies to entries added from now on'),
}).refine((p) => Object.values(p).some((v) => v !== undefined), 'Give at least one field to change');
export type BlocklistPatchT = z.infer<typeof BlocklistPatch>;

export const Blocklist = z.object({
  id: z.string().describe('Also the id of the list\'s TAXII 2.1 collection (`/taxii2/api/collections/{id}/`)'),
  name: z.string(),
  description: z.string(),
  indicatorTypes: z.array(BlockableType),
  defaultTtlSeconds: z.number().int().nullable(),
  activeEntries: z.number().int().describe('Entries not expired'),
  url: z.string().describe('Where firewalls fetch the list (Basic auth, the API key as password)'),
  createdAt: z.string(),
  updatedAt: z.string(),
}).meta({ id: 'Blocklist' });
export type BlocklistDto = z.infer<typeof Blocklist>;

export const BlocklistList = z.object({ blocklists: z.array(Blocklist), totalCount: z.number().int() });

export const AddedBy = z.discriminatedUnion('type', [
  z.object({ type: z.literal('user'), userId: z.string().nullable() }),
  z.object({ type: z.literal('run'), runId: z.string().nullable(), agentId: z.string().nullable(), alertId: z.string().nullable() }),
]).describe('Who added the entry: a person (or API key) or an agent\'s run');

export const BlocklistEntry = z.object({
  id: z.string(),
  blocklistId: z.string(),
  type: BlockableType,
  value: z.string().describe('Normalized: refanged, lower-cased host, canonical address or network'),
  reason: z.string(),
  expiresAt: z.string().nullable().describe('After it the entry leaves the list; null: until removed'),
  addedBy: AddedBy,
  createdAt: z.string(),
  updatedAt: z.string().describe('Last time it was added again (its reason and expiry replaced)'),
}).meta({ id: 'BlocklistEntry' });
export type BlocklistEntryDto = z.infer<typeof BlocklistEntry>;

export const EntryInput = z.object({
  type: BlockableType,
  value: z.string().min(1).max(2048).describe('Defanged forms are accepted (`evil[.]example`, `hxxps://…`); IP lists take networks too (`198.51.100.0/24`)'),
  reason: z.string().trim().min(1).max(2000).describe('Why it is blocked (shown in the console, the TAXII indicator\'s description)'),
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional().describe('When it leaves the list (in the future); null: until removed. Default: now plus `ttlSeconds`, else the list\'s `defaultTtlSeconds`'),
  ttlSeconds: Ttl.optional().describe('Instead of `expiresAt`: how long from now'),
}).refine((e) => !(e.expiresAt !== undefined && e.ttlSeconds !== undefined), { message: 'Give expiresAt or ttlSeconds, not both', path: ['ttlSeconds'] });
export type EntryInputT = z.infer<typeof EntryInput>;

export const EntryList = z.object({ entries: z.array(BlocklistEntry), totalCount: z.number().int() });
export const EntriesQuery = LimitOffsetQuery.extend({
  type: BlockableType.optional(),
  includeExpired: z.enum(['true', 'false']).default('false').transform((v) => v === 'true').describe('Also expired entries the cleanup has not removed yet'),
});
export const EntryParams = z.object({ id: z.uuid({ error: 'must be a UUID' }), entryId: z.uuid({ error: 'must be a UUID' }) });

export const AllowlistRule = z.object({
  id: z.string().nullable().describe('null for the built-in rules, which cannot be removed'),
  kind: z.enum(['domain', 'cidr']),
  value: z.string(),
  note: z.string(),
  builtin: z.boolean(),
  createdAt: z.string().nullable(),
}).meta({ id: 'BlocklistAllowRule' });
export const AllowlistAnswer = z.object({ rules: z.array(AllowlistRule) });
export const AllowlistInput = z.object({
  kind: z.enum(['domain', 'cidr']),
  value: z.string().min(1).max(300).describe('A domain (its subdomains are covered too) or an address / CIDR range'),
  note: z.string().max(500).default(''),
});
export type AllowlistInputT = z.infer<typeof AllowlistInput>;

export const TxtParams = z.object({ name: z.string().max(80) });
export const TxtQuery = z.object({
  type: z.enum(Object.keys(TXT_GROUPS) as [keyof typeof TXT_GROUPS]).optional()
    .describe('Only one kind of entry: `ip`, `domain`, `url` or `hash` (a PAN-OS EDL object holds one type)'),
});
export const TxtBody = z.string().describe('One value per line (text/plain), oldest first');
