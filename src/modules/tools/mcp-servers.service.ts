import { uuidv7 } from 'uuidv7';
import { withTransaction } from '../../platform/cache/transaction.js';
import { assertEditable, managedColumns, type WriteOptions } from '../../platform/managed.js';
import type { Database } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import type { RequestContext } from '../../platform/context.js';
import { updatedSecret, type SecretBox } from '../../platform/secrets.js';
import type { GuardedClient } from '../../platform/outbound/guarded-client.js';
import { assertSecretStaysWithOrigin } from '../../platform/outbound/secret-origin.js';
import { redactUrlSecrets } from '../../platform/outbound/url-secrets.js';
import { hasPermission } from '../../platform/auth/actor.js';
import { writeAudit } from '../../platform/audit.js';
import { AppError, ConflictError, NotFoundError } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { connectMcp, McpConnectionError } from './mcp-client.js';
import {
  agentsUsingMcpServer,
  deleteMcpServerRow,
  findMcpServerRow,
  insertMcpServerRow,
  listMcpServerRows,
  updateMcpServerRow,
  type McpServerRow,
} from './mcp-servers.repo.js';
import type { McpServerDto, McpServerInputT } from './mcp-servers.schemas.js';

/** How long the live tool listing may take, connection included. */
const LIST_TIMEOUT_MS = 15_000;

/**
 * `reveal`: the URL as stored, for callers with `tool.manage` (who can change it anyway); others
 * get credentials inside it (`?apikey=`, `?key=`…) redacted, as for sources and destinations.
 */
function toDto(row: McpServerRow, reveal: boolean): McpServerDto {
  return {
    id: row.id,
    organizationId: row.organizationId,
    name: row.name,
    url: reveal ? row.url : redactUrlSecrets(row.url),
    enabled: row.enabled,
    hasToken: row.tokenCiphertext !== null,
    managedBy: row.managedBy,
    managedSource: row.managedSource,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

const nameTaken = (name: string) => new ConflictError(`An MCP server named "${name}" already exists`);
const inUse = (name: string, agents: string[], what: string) =>
  new ConflictError(`MCP server "${name}" is used by agent${agents.length > 1 ? 's' : ''} ${agents.map((a) => `"${a}"`).join(', ')}; remove its tools from their toolNames before ${what} it`);

export function createMcpServersService(deps: { db: Database; secrets: SecretBox; http: GuardedClient }) {
  const { db, secrets, http } = deps;

  async function mustFind(ctx: RequestContext, id: string): Promise<McpServerRow> {
    const row = await findMcpServerRow(db, ctx.actor.organizationId, id);
    if (!row) throw new NotFoundError('MCP server');
    return row;
  }

  return {
    async list(ctx: RequestContext) {
      const reveal = hasPermission(ctx.actor, 'tool.manage');
      return { mcpServers: (await listMcpServerRows(db, ctx.actor.organizationId)).map((r) => toDto(r, reveal)) };
    },

    async get(ctx: RequestContext, id: string): Promise<McpServerDto> {
      return toDto(await mustFind(ctx, id), hasPermission(ctx.actor, 'tool.manage'));
    },

    /** `opts`: config apply's transaction and "managed by code" marking (platform/managed.ts). */
    async create(ctx: RequestContext, input: McpServerInputT, opts?: WriteOptions): Promise<McpServerDto> {
      const now = new Date();
      const row: McpServerRow = {
        id: uuidv7(),
        organizationId: ctx.actor.organizationId,
        name: input.name,
        url: input.url,
        tokenCiphertext: input.token ? secrets.encrypt(input.token) : null,
        enabled: input.enabled ?? true,
        managedBy: null,
        managedSource: null,
        ...managedColumns(opts),
        createdAt: now,
        updatedAt: now,
      };
      try {
        await withTransaction(opts?.tx ?? db, async (tx) => {
          await insertMcpServerRow(tx, row);
          await writeAudit(tx, ctx, { action: 'mcpServer.create', resourceType: 'mcpServer', resourceId: row.id, metadata: { name: row.name, enabled: row.enabled, hasToken: row.tokenCiphertext !== null } });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken(input.name);
        throw err;
      }
      return toDto(row, true);
    },

    /**
     * Replaces name and URL; an omitted token keeps the stored one (null clears it) unless the URL
     * moves to another origin (400: the token must be given again), an omitted `enabled` keeps
     * the current state. Renaming a server that agents reference is refused:
     * their `mcp:<name>/…` tool names would silently stop resolving.
     */
    async update(ctx: RequestContext, id: string, input: McpServerInputT, opts?: WriteOptions): Promise<McpServerDto> {
      try {
        return await withTransaction(opts?.tx ?? db, async (tx) => {
          const existing = await findMcpServerRow(tx, ctx.actor.organizationId, id, true);
          if (!existing) throw new NotFoundError('MCP server');
          assertEditable(existing, 'McpServer', existing.name, opts);
          if (input.name !== existing.name) {
            const agents = await agentsUsingMcpServer(tx, ctx.actor.organizationId, existing.name);
            if (agents.length) throw inUse(existing.name, agents, 'renaming');
          }
          assertSecretStaysWithOrigin({ secretField: 'token', urlField: 'url', before: existing.url, after: input.url, stored: existing.tokenCiphertext !== null, given: input.token !== undefined });
          const token = updatedSecret(secrets, input.token, existing.tokenCiphertext);
          const row: McpServerRow = { ...existing, name: input.name, url: input.url, tokenCiphertext: token.ciphertext, enabled: input.enabled ?? existing.enabled, ...managedColumns(opts), updatedAt: new Date() };
          await updateMcpServerRow(tx, row);
          await writeAudit(tx, ctx, {
            action: 'mcpServer.update',
            resourceType: 'mcpServer',
            resourceId: id,
            metadata: {
              name: row.name,
              changed: (['name', 'url', 'enabled'] as const).filter((k) => row[k] !== existing[k]),
              token: token.change,
            },
          });
          return toDto(row, true);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken(input.name);
        throw err;
      }
    },

    async remove(ctx: RequestContext, id: string, opts?: WriteOptions): Promise<{ success: boolean }> {
      await withTransaction(opts?.tx ?? db, async (tx) => {
        const existing = await findMcpServerRow(tx, ctx.actor.organizationId, id, true);
        if (!existing) throw new NotFoundError('MCP server');
        assertEditable(existing, 'McpServer', existing.name, opts);
        const agents = await agentsUsingMcpServer(tx, ctx.actor.organizationId, existing.name);
        if (agents.length) throw inUse(existing.name, agents, 'deleting');
        await deleteMcpServerRow(tx, ctx.actor.organizationId, id);
        await writeAudit(tx, ctx, { action: 'mcpServer.delete', resourceType: 'mcpServer', resourceId: id, metadata: { name: existing.name } });
      });
      return { success: true };
    },

    /** Connects now and lists the server's tools (enabled or not: this is how one tries a server). */
    async listTools(ctx: RequestContext, id: string) {
      const row = await mustFind(ctx, id);
      const signal = AbortSignal.timeout(LIST_TIMEOUT_MS);
      let conn;
      try {
        conn = await connectMcp(http, { name: row.name, url: row.url, token: row.tokenCiphertext ? secrets.decrypt(row.tokenCiphertext) : null }, { signal, timeoutMs: LIST_TIMEOUT_MS });
        const tools = await conn.listTools({ signal });
        return {
          tools: tools.map((t) => ({
            name: t.name,
            toolName: `mcp:${row.name}/${t.name}`,
            ...(t.title ? { title: t.title } : {}),
            description: t.description ?? '',
            inputSchema: t.inputSchema as Record<string, unknown>,
          })),
        };
      } catch (err) {
        if (err instanceof McpConnectionError) throw new AppError(502, err.message);
        throw err;
      } finally {
        await conn?.close();
      }
    },
  };
}

export type McpServersService = ReturnType<typeof createMcpServersService>;
