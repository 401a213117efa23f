import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';

export interface McpServerRow {
  id: string;
  organizationId: string;
  name: string;
  url: string;
  tokenCiphertext: string | null;
  enabled: boolean;
  managedBy: 'code' | null;
  managedSource: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = ['id', 'organizationId', 'name', 'url', 'tokenCiphertext', 'enabled', 'managedBy', 'managedSource', 'createdAt', 'updatedAt'] as const;

export function listMcpServerRows(db: Queryable, organizationId: string): Promise<McpServerRow[]> {
  return db.selectFrom('mcpServers').select(COLUMNS).where('organizationId', '=', organizationId).orderBy('name').execute();
}

export async function findMcpServerRow(db: Queryable, organizationId: string, id: string, forUpdate = false): Promise<McpServerRow | null> {
  let q = db.selectFrom('mcpServers').select(COLUMNS).where('organizationId', '=', organizationId).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  return (await q.executeTakeFirst()) ?? null;
}

export async function findMcpServersByName(db: Queryable, organizationId: string, names: readonly string[]): Promise<McpServerRow[]> {
  if (names.length === 0) return [];
  return db.selectFrom('mcpServers').select(COLUMNS).where('organizationId', '=', organizationId).where('name', 'in', names).execute();
}

export async function insertMcpServerRow(db: Queryable, row: McpServerRow): Promise<void> {
  await db.insertInto('mcpServers').values(row).execute();
}

export async function updateMcpServerRow(db: Queryable, row: Omit<McpServerRow, 'createdAt'>): Promise<void> {
  await db
    .updateTable('mcpServers')
    .set({ name: row.name, url: row.url, tokenCiphertext: row.tokenCiphertext, enabled: row.enabled, managedBy: row.managedBy, managedSource: row.managedSource, updatedAt: row.updatedAt })
    .where('organizationId', '=', row.organizationId)
    .where('id', '=', row.id)
    .execute();
}

export async function deleteMcpServerRow(db: Queryable, organizationId: string, id: string): Promise<void> {
  await db.deleteFrom('mcpServers').where('organizationId', '=', organizationId).where('id', '=', id).execute();
}

/** Names of the organization's agents whose toolNames reference `mcp:<server>/…`. */
export async function agentsUsingMcpServer(db: Queryable, organizationId: string, server: string): Promise<string[]> {
  const prefix = `mcp:${server}/`;
  const rows = await db
    .selectFrom('agents')
    .select('name')
    .where('organizationId', '=', organizationId)
    .where(sql<boolean>`EXISTS (SELECT 1 FROM unnest(tool_names) AS t(n) WHERE starts_with(t.n, ${prefix}))`)
    .orderBy('name')
    .execute();
  return rows.map((r) => r.name);
}

/** MCP server names among `names` that the organization has not registered. */
export async function unknownMcpServers(db: Queryable, organizationId: string, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const found = await db.selectFrom('mcpServers').select('name').where('organizationId', '=', organizationId).where('name', 'in', names).forKeyShare().execute();
  const known = new Set(found.map((r) => r.name));
  return names.filter((n) => !known.has(n));
}
