import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { uuidv7 } from 'uuidv7';
import type { Database, Queryable } from '../../platform/db/database.js';
import { generateApiKey, keyFromValue } from '../../platform/auth/api-keys.js';
import { SUPER_ADMIN_ROLE } from '../../platform/auth/permissions.js';
import { insertSystemRoles } from '../roles/index.js';
import { insertUser } from '../users/index.js';
import { insertApiKey } from '../api-keys/index.js';
import { writeAudit } from '../../platform/audit.js';
import { iso } from '../../platform/time.js';

/**
 * Organizations are created by the operator only (CLI and first-start bootstrap), never through
 * an API key (the API spec's "Authentication"). Each gets the system roles, a Super Admin user and that user's first
 * API key, all in one transaction.
 */
export interface CreatedOrganization {
  organization: { id: string; name: string; createdAt: string };
  user: { id: string; email: string; name: string; roleId: string; roleName: string };
  apiKey: { id: string; name: string; prefix: string; key: string };
}

export async function createOrganization(
  db: Database,
  input: { name: string; adminEmail: string; adminName?: string; apiKeyValue?: string },
): Promise<CreatedOrganization> {
  return db.transaction().execute(async (tx) => {
    const orgId = uuidv7();
    const now = new Date();
    await tx.insertInto('organizations').values({ id: orgId, name: input.name, createdAt: now, updatedAt: now }).execute();
    // Each row through its owner's command: roles, users and api-keys own their tables.
    const roleIds = await insertSystemRoles(tx, orgId, now);
    const adminRoleId = roleIds.get(SUPER_ADMIN_ROLE)!;
    const userName = input.adminName ?? input.adminEmail.split('@')[0] ?? 'admin';
    const userId = await insertUser(tx, { organizationId: orgId, email: input.adminEmail, name: userName, roleId: adminRoleId }, now);
    const generated = input.apiKeyValue ? keyFromValue(input.apiKeyValue) : generateApiKey();
    const keyId = await insertApiKey(tx, { organizationId: orgId, userId, name: 'Initial admin key', generated });
    const actor = { type: 'system' as const, organizationId: orgId };
    await writeAudit(tx, { actor }, { action: 'organization.create', resourceType: 'organization', resourceId: orgId, metadata: { name: input.name } });
    await writeAudit(tx, { actor }, { action: 'user.create', resourceType: 'user', resourceId: userId, metadata: { email: input.adminEmail, role: SUPER_ADMIN_ROLE } });
    await writeAudit(tx, { actor }, { action: 'apiKey.create', resourceType: 'apiKey', resourceId: keyId, metadata: { prefix: generated.prefix } });
    return {
      organization: { id: orgId, name: input.name, createdAt: iso(now) },
      user: { id: userId, email: input.adminEmail, name: userName, roleId: adminRoleId, roleName: SUPER_ADMIN_ROLE },
      apiKey: { id: keyId, name: 'Initial admin key', prefix: generated.prefix, key: generated.key },
    };
  });
}

// Serialises concurrent first starts so exactly one of them bootstraps.
const BOOTSTRAP_LOCK_ID = 7_241_305_002;

/**
 * First start with an empty database: one organization, a Super Admin and an API key, written
 * to `<dataDir>/bootstrap-api-key` (0600) unless RAMPART_BOOTSTRAP_API_KEY supplied the value.
 * The log says where the key is, never the key.
 */
export async function bootstrapIfEmpty(
  db: Database,
  opts: { dataDir: string; apiKeyValue?: string; logger: Logger },
): Promise<CreatedOrganization | null> {
  // A transaction-scoped lock on one connection, held across the check and the creation: it
  // cannot outlive them (a session lock released by a second statement could, behind a pooler).
  const created = await db.connection().execute(async (conn) => {
    await sql`BEGIN`.execute(conn);
    let done = false;
    try {
      await sql`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK_ID})`.execute(conn);
      const existing = await conn.selectFrom('organizations').select('id').limit(1).executeTakeFirst();
      // Created on another connection, in its own transaction: committed before our lock is released.
      const result = existing
        ? null
        : await createOrganization(db, {
            name: 'Default organization',
            adminEmail: 'admin@localhost',
            adminName: 'Administrator',
            ...(opts.apiKeyValue ? { apiKeyValue: opts.apiKeyValue } : {}),
          });
      await sql`COMMIT`.execute(conn);
      done = true;
      return result;
    } finally {
      if (!done) await sql`ROLLBACK`.execute(conn).catch(() => {});
    }
  });
  if (!created) return null;
  if (opts.apiKeyValue) {
    opts.logger.info({ organizationId: created.organization.id }, 'bootstrapped the first organization with RAMPART_BOOTSTRAP_API_KEY');
  } else {
    const file = path.join(opts.dataDir, 'bootstrap-api-key');
    fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o711 });
    fs.writeFileSync(file, `${created.apiKey.key}\n`, { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    opts.logger.info({ organizationId: created.organization.id, file }, 'bootstrapped the first organization; its admin API key is in the file named here');
  }
  return created;
}

/** An organization's name (intel-out names its feeds and exports after it). */
export async function organizationName(db: Queryable, organizationId: string): Promise<string> {
  const row = await db.selectFrom('organizations').select('name').where('id', '=', organizationId).executeTakeFirstOrThrow();
  return row.name;
}

/** The installation's organization when it has exactly one (the usual self-hosted case), else null. */
export async function soleOrganizationId(db: Queryable): Promise<string | null> {
  const rows = await db.selectFrom('organizations').select('id').limit(2).execute();
  return rows.length === 1 ? rows[0]!.id : null;
}
