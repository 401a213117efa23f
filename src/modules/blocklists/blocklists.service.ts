import type { Database, Queryable } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import { writeAudit } from '../../platform/audit.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import { ConflictError, NotFoundError, UnprocessableError, ValidationError } from '../../platform/http/errors.js';
import {
  allowRuleBroken,
  BUILTIN_ALLOW_RULES,
  canonicalDomain,
  canonicalRange,
  expiryOf,
  externalListLine,
  parseBlockValue,
  TXT_GROUPS,
  type AllowRule,
  type BlockableType,
  type TxtGroup,
} from './blocklists.fns.js';
import * as repo from './blocklists.repo.js';
import type { AllowlistInputT, BlocklistDto, BlocklistEntryDto, BlocklistInputT, BlocklistPatchT, EntryInputT } from './blocklists.schemas.js';

/** How many values the external list reads per query while it streams. */
const TXT_PAGE = 5_000;

function dto(r: repo.BlocklistRow, baseUrl: string): BlocklistDto {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    indicatorTypes: r.indicatorTypes as BlockableType[],
    defaultTtlSeconds: r.defaultTtlSeconds,
    activeEntries: r.activeEntries,
    url: `${baseUrl.replace(/\/+$/, '')}/blocklists/${r.name}.txt`,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

const nameTaken = (name: string) => new ConflictError(`A block list named "${name}" already exists`);

/** The organization's allow rules: the built-in ranges first, then its own. */
export async function allowRules(db: Queryable, orgId: string): Promise<AllowRule[]> {
  const own = await repo.listAllowRules(db, orgId);
  return [...BUILTIN_ALLOW_RULES, ...own.map((r) => ({ kind: r.kind, value: r.value, note: r.note, builtin: false }))];
}

/** Who adds an entry, and the alert a run works on (its timeline names the block). */
export type EntryAuthor = repo.NewEntry['addedBy'];

/**
 * The checks every addition passes, by a person or a run: the list takes the type, the value
 * is one of it, the expiry is in the future, and the allow list does not protect it (422,
 * naming the rule). Answers the stored value and expiry.
 */
export async function checkedEntry(db: Queryable, list: repo.BlocklistRow, input: EntryInputT, now = new Date()): Promise<{ value: string; expiresAt: Date | null }> {
  if (!list.indicatorTypes.includes(input.type)) {
    throw ValidationError.single('type', `The block list "${list.name}" holds ${list.indicatorTypes.join(', ')}, not ${input.type}`, 'type_not_accepted');
  }
  const checked = parseBlockValue(input.type, input.value);
  if (!checked.ok) throw ValidationError.single('value', checked.message, 'invalid_value');
  const expiresAt = expiryOf(now, input, list.defaultTtlSeconds);
  if (expiresAt && expiresAt.getTime() <= now.getTime()) throw ValidationError.single('expiresAt', 'must be in the future', 'expiry_in_past');
  const broken = allowRuleBroken(input.type, checked.value, await allowRules(db, list.organizationId));
  if (broken) {
    throw new UnprocessableError(`${checked.value} must never be blocked: the allow list protects ${broken.value} (${broken.note || (broken.builtin ? 'built-in' : 'allow list')})`, {
      code: 'allowlisted',
      allowRule: { kind: broken.kind, value: broken.value, builtin: broken.builtin },
    });
  }
  return { value: checked.value, expiresAt };
}

/** Adds (or re-adds) a checked value and writes the audit entry, in the caller's transaction. */
export async function addEntry(tx: Queryable, ctx: RequestContext, list: repo.BlocklistRow, input: EntryInputT, by: EntryAuthor) {
  const { value, expiresAt } = await checkedEntry(tx, list, input);
  const saved = await repo.upsertEntry(tx, { organizationId: list.organizationId, blocklistId: list.id, type: input.type, value, reason: input.reason, expiresAt, addedBy: by });
  await writeAudit(tx, ctx, {
    action: saved.created ? 'blocklist.entry.add' : 'blocklist.entry.renew',
    resourceType: 'blocklist',
    resourceId: list.id,
    metadata: { entryId: saved.entry.id, type: input.type, value, expiresAt: saved.entry.expiresAt, ...(by.type === 'run' ? { runId: by.runId } : {}) },
  });
  return saved;
}

export async function removeEntry(tx: Queryable, ctx: RequestContext, list: repo.BlocklistRow, entry: BlocklistEntryDto, via?: { runId: string }) {
  await writeAudit(tx, ctx, { action: 'blocklist.entry.remove', resourceType: 'blocklist', resourceId: list.id, metadata: { entryId: entry.id, type: entry.type, value: entry.value, ...(via ?? {}) } });
}

export function createBlocklistsService(deps: { db: Database; baseUrl: string }) {
  const { db, baseUrl } = deps;

  async function listOf(orgId: string, id: string): Promise<repo.BlocklistRow> {
    const list = await repo.findBlocklist(db, orgId, id);
    if (!list) throw new NotFoundError('Block list');
    return list;
  }

  return {
    async list(ctx: RequestContext, page: { limit: number; offset: number }) {
      const { rows, total } = await repo.listBlocklists(db, ctx.actor.organizationId, page.limit, page.offset);
      return { blocklists: rows.map((r) => dto(r, baseUrl)), totalCount: total };
    },

    get: async (ctx: RequestContext, id: string) => dto(await listOf(ctx.actor.organizationId, id), baseUrl),

    async create(ctx: RequestContext, input: BlocklistInputT): Promise<BlocklistDto> {
      const orgId = ctx.actor.organizationId;
      try {
        const id = await db.transaction().execute(async (tx) => {
          const id = await repo.insertBlocklist(tx, { organizationId: orgId, ...input, createdBy: ctx.actor.userId });
          await writeAudit(tx, ctx, { action: 'blocklist.create', resourceType: 'blocklist', resourceId: id, metadata: { name: input.name, indicatorTypes: input.indicatorTypes } });
          return id;
        });
        return dto(await listOf(orgId, id), baseUrl);
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken(input.name);
        throw err;
      }
    },

    async update(ctx: RequestContext, id: string, patch: BlocklistPatchT): Promise<BlocklistDto> {
      const orgId = ctx.actor.organizationId;
      const change = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      try {
        await db.transaction().execute(async (tx) => {
          if (!(await repo.updateBlocklist(tx, orgId, id, change))) throw new NotFoundError('Block list');
          await writeAudit(tx, ctx, { action: 'blocklist.update', resourceType: 'blocklist', resourceId: id, metadata: { fields: Object.keys(change) } });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken(patch.name ?? '');
        throw err;
      }
      return dto(await listOf(orgId, id), baseUrl);
    },

    async remove(ctx: RequestContext, id: string) {
      await db.transaction().execute(async (tx) => {
        if (!(await repo.deleteBlocklist(tx, ctx.actor.organizationId, id))) throw new NotFoundError('Block list');
        await writeAudit(tx, ctx, { action: 'blocklist.delete', resourceType: 'blocklist', resourceId: id });
      });
      return { success: true };
    },

    async entries(ctx: RequestContext, id: string, q: { type?: BlockableType | undefined; includeExpired: boolean; limit: number; offset: number }) {
      const list = await listOf(ctx.actor.organizationId, id);
      return repo.listEntries(db, list.organizationId, list.id, q);
    },

    async addEntry(ctx: RequestContext, id: string, input: EntryInputT) {
      const list = await listOf(ctx.actor.organizationId, id);
      return db.transaction().execute((tx) => addEntry(tx, ctx, list, input, { type: 'user', userId: ctx.actor.userId }));
    },

    async removeEntry(ctx: RequestContext, id: string, entryId: string) {
      const list = await listOf(ctx.actor.organizationId, id);
      await db.transaction().execute(async (tx) => {
        const entry = await repo.deleteEntry(tx, list.organizationId, list.id, entryId);
        if (!entry) throw new NotFoundError('Entry');
        await removeEntry(tx, ctx, list, entry);
      });
      return { success: true };
    },

    async allowlist(ctx: RequestContext) {
      const own = await repo.listAllowRules(db, ctx.actor.organizationId);
      return {
        rules: [
          ...BUILTIN_ALLOW_RULES.map((r) => ({ id: null, ...r, createdAt: null })),
          ...own.map((r) => ({ id: r.id, kind: r.kind, value: r.value, note: r.note, builtin: false, createdAt: r.createdAt.toISOString() })),
        ],
      };
    },

    async addAllowRule(ctx: RequestContext, input: AllowlistInputT) {
      const value = input.kind === 'cidr' ? canonicalRange(input.value.trim()) : canonicalDomain(input.value);
      if (!value) throw ValidationError.single('value', input.kind === 'cidr' ? 'must be an IP address or CIDR range' : 'must be a domain name', 'invalid_value');
      try {
        return await db.transaction().execute(async (tx) => {
          const r = await repo.insertAllowRule(tx, { organizationId: ctx.actor.organizationId, kind: input.kind, value, note: input.note, createdBy: ctx.actor.userId });
          await writeAudit(tx, ctx, { action: 'blocklist.allowlist.add', resourceType: 'blocklist_allowlist', resourceId: r.id, metadata: { kind: r.kind, value: r.value } });
          return { id: r.id, kind: r.kind, value: r.value, note: r.note, builtin: false, createdAt: r.createdAt.toISOString() };
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError(`The allow list already holds ${value}`);
        throw err;
      }
    },

    async removeAllowRule(ctx: RequestContext, id: string) {
      await db.transaction().execute(async (tx) => {
        if (!(await repo.deleteAllowRule(tx, ctx.actor.organizationId, id))) throw new NotFoundError('Allow rule');
        await writeAudit(tx, ctx, { action: 'blocklist.allowlist.remove', resourceType: 'blocklist_allowlist', resourceId: id });
      });
      return { success: true };
    },

    /**
     * The external list by name: its active values, one per line, read page by page as the
     * response streams (a list of a million values never sits in memory). 404 for a name the
     * organization does not have.
     */
    async txt(orgId: string, name: string, group: TxtGroup | undefined): Promise<AsyncGenerator<string>> {
      const list = await repo.findBlocklistByName(db, orgId, name);
      if (!list) throw new NotFoundError('Block list');
      const types = group ? TXT_GROUPS[group] : undefined;
      return (async function* lines() {
        let after: string | null = null;
        for (;;) {
          const page = await repo.activeValuesPage(db, orgId, list.id, types, after, TXT_PAGE);
          let chunk = '';
          for (const r of page) {
            const line = externalListLine(r.type, r.value);
            if (line !== null) chunk += `${line}\n`;
          }
          if (chunk) yield chunk;
          if (page.length < TXT_PAGE) return;
          after = page.at(-1)!.seq;
        }
      })();
    },
  };
}

export type BlocklistsService = ReturnType<typeof createBlocklistsService>;
