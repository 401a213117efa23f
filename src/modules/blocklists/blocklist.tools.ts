import { z } from 'zod';
import { tool } from '../../platform/ai-sdk.js';
import type { Queryable } from '../../platform/db/database.js';
import { AppError, ValidationError } from '../../platform/http/errors.js';
import type { ToolCatalog, ToolDeps, ToolRunContext } from '../../platform/agent-tools.js';
import { requestContextOf } from '../tools/index.js';
import { addTimelineEntry, findAlert } from '../alerts/index.js';
import { BLOCKABLE_TYPES, guessBlockType, parseBlockValue, type BlockableType } from './blocklists.fns.js';
import * as repo from './blocklists.repo.js';
import { addEntry, removeEntry } from './blocklists.service.js';

/** The permissions of both tools: the routes' that change entries. */
const MANAGE = ['blocklist.manage'] as const;

// Refusals become plain messages for the model (its tool result): the allow list's reason, a wrong type.
const plain = async <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ValidationError) throw new Error(err.issues.map((i) => i.message).join('; '));
    if (err instanceof AppError && err.statusCode < 500) throw new Error(err.message);
    throw err;
  }
};

/** The type of the value: as given, else as read from the value. */
function typeOf(given: BlockableType | undefined, value: string): BlockableType {
  const type = given ?? guessBlockType(value);
  if (!type) throw new Error(`Give type: "${value.slice(0, 200)}" is not recognisably one of ${BLOCKABLE_TYPES.join(', ')}`);
  return type;
}

/** The list named, or the organization's only list of the type. */
async function listFor(db: Queryable, orgId: string, name: string | undefined, type: string): Promise<repo.BlocklistRow> {
  if (name !== undefined) {
    const list = await repo.findBlocklistByName(db, orgId, name);
    if (!list) throw new Error(`No block list named "${name}" in this organization`);
    return list;
  }
  const candidates = await repo.blocklistsForType(db, orgId, type);
  if (candidates.length !== 1) {
    throw new Error(candidates.length === 0 ? `No block list of this organization holds ${type}` : `Give list: ${candidates.map((c) => c.name).join(', ')} all hold ${type}`);
  }
  return (await repo.findBlocklist(db, orgId, candidates[0]!.id))!;
}

/** The run's alert, when it has one this organization still holds: its timeline names the change. */
async function noteOnAlert(tx: Queryable, ctx: ToolRunContext, kind: 'blocked' | 'unblocked', body: string, data: Record<string, unknown>): Promise<void> {
  if (!ctx.alertId || !(await findAlert(tx, ctx.organizationId, ctx.alertId))) return;
  await addTimelineEntry(tx, { organizationId: ctx.organizationId, alertId: ctx.alertId, kind, actorType: 'agent', actorAgentId: ctx.agentId, runId: ctx.runId, body, data });
}

const listName = z.string().max(80).optional().describe('The block list\'s name; may be left out when only one list of the organization holds the type');
const typeField = z.enum(BLOCKABLE_TYPES).optional().describe('The value\'s type; read from the value when left out');

/**
 * The block-list tools, acting as the run's user (`blocklist.manage`). Blocking is a change
 * firewalls enforce: `block_indicator` asks a person's approval by default. Unblocking
 * restores what was there before a block and runs at once by default (an agent that finds its
 * block was a false positive must be able to undo it without waiting); an agent's tool policy
 * can require approval for it too.
 */
export const blocklistTools = {
  block_indicator: {
    permissions: MANAGE,
    defaultPolicy: 'approve',
    factory: (tdeps: ToolDeps, ctx: ToolRunContext) =>
      tool({
        description:
          'Block an IP address or network, domain, URL or file hash: it is added to a block list that the organization\'s firewalls enforce, until it expires. ' +
          'Private, loopback and link-local addresses and the organization\'s own domains and ranges are refused. Blocking a value already listed replaces its reason and expiry.',
        inputSchema: z.object({
          value: z.string().min(1).max(2048).describe('The value to block (defanged forms are accepted)'),
          type: typeField,
          list: listName,
          reason: z.string().trim().min(1).max(2000).describe('Why it is blocked: the evidence, for the person reviewing'),
          ttlSeconds: z.number().int().min(60).max(10 * 365 * 24 * 3600).optional().describe('How long the block lasts; default: the list\'s default'),
        }),
        execute: async (input) =>
          plain(async () => {
            const rctx = requestContextOf(ctx);
            const type = typeOf(input.type, input.value);
            return tdeps.db.transaction().execute(async (tx) => {
              const list = await listFor(tx, ctx.organizationId, input.list, type);
              const by = { type: 'run' as const, runId: ctx.runId, agentId: ctx.agentId, alertId: ctx.alertId ?? null };
              const { entry, created } = await addEntry(tx, rctx, list, { type, value: input.value, reason: input.reason, ...(input.ttlSeconds !== undefined ? { ttlSeconds: input.ttlSeconds } : {}) }, by);
              const until = entry.expiresAt ? `until ${entry.expiresAt}` : 'until removed';
              await noteOnAlert(tx, ctx, 'blocked', `Blocked ${type} ${entry.value} on block list "${list.name}" ${until}: ${input.reason}`, {
                blocklistId: list.id,
                blocklistName: list.name,
                entryId: entry.id,
                type,
                value: entry.value,
                expiresAt: entry.expiresAt,
              });
              return { blocked: true, renewed: !created, list: list.name, type, value: entry.value, expiresAt: entry.expiresAt, entryId: entry.id };
            });
          }),
      }),
  },
  unblock_indicator: {
    permissions: MANAGE,
    defaultPolicy: 'allow',
    factory: (tdeps: ToolDeps, ctx: ToolRunContext) =>
      tool({
        description: 'Remove a value from a block list (the firewalls stop blocking it at their next refresh).',
        inputSchema: z.object({
          value: z.string().min(1).max(2048).describe('The blocked value'),
          type: typeField,
          list: listName,
          reason: z.string().trim().max(2000).optional().describe('Why it is unblocked'),
        }),
        execute: async (input) =>
          plain(async () => {
            const rctx = requestContextOf(ctx);
            const type = typeOf(input.type, input.value);
            const checked = parseBlockValue(type, input.value);
            if (!checked.ok) throw new Error(checked.message);
            return tdeps.db.transaction().execute(async (tx) => {
              const list = await listFor(tx, ctx.organizationId, input.list, type);
              const entry = await repo.deleteEntryByValue(tx, ctx.organizationId, list.id, type, checked.value);
              if (!entry) return { unblocked: false, list: list.name, type, value: checked.value, note: 'The list did not hold this value' };
              await removeEntry(tx, rctx, list, entry, { runId: ctx.runId });
              await noteOnAlert(tx, ctx, 'unblocked', `Unblocked ${type} ${entry.value} on block list "${list.name}"${input.reason ? `: ${input.reason}` : ''}`, {
                blocklistId: list.id,
                blocklistName: list.name,
                type,
                value: entry.value,
              });
              return { unblocked: true, list: list.name, type, value: entry.value };
            });
          }),
      }),
  },
} as const satisfies ToolCatalog;
