import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Database, Queryable } from '../../platform/db/database.js';

export interface NewSession {
  organizationId: string;
  userId: string;
  apiKeyId: string | null;
  method: 'api_key' | 'login_link' | 'oidc';
  tokenHash: Buffer;
  expiresAt: Date;
}

export async function insertSession(db: Queryable, s: NewSession) {
  return db.insertInto('consoleSessions').values({ id: uuidv7(), ...s }).returningAll().executeTakeFirstOrThrow();
}

/** The session, its user and role as they are now, and the exchanged key's state (it can be revoked since). */
export async function findSessionByHash(db: Queryable, tokenHash: Buffer) {
  return db
    .selectFrom('consoleSessions as s')
    .innerJoin('users as u', 'u.id', 's.userId')
    .innerJoin('roles as r', 'r.id', 'u.roleId')
    .leftJoin('apiKeys as k', 'k.id', 's.apiKeyId')
    .select([
      's.id',
      's.organizationId',
      's.userId',
      's.apiKeyId',
      's.method',
      's.createdAt',
      's.lastSeenAt',
      's.expiresAt',
      's.revokedAt',
      'u.email',
      'u.name',
      'u.deactivatedAt',
      'r.id as roleId',
      'r.name as roleName',
      'r.permissions',
      'k.revokedAt as keyRevokedAt',
      'k.expiresAt as keyExpiresAt',
    ])
    .where('s.tokenHash', '=', tokenHash)
    .executeTakeFirst();
}

export type SessionRow = NonNullable<Awaited<ReturnType<typeof findSessionByHash>>>;

export async function touchSession(db: Database, id: string): Promise<void> {
  await db.updateTable('consoleSessions').set({ lastSeenAt: new Date() }).where('id', '=', id).execute();
}

export async function revokeSession(db: Queryable, id: string): Promise<void> {
  await db.updateTable('consoleSessions').set({ revokedAt: new Date() }).where('id', '=', id).where('revokedAt', 'is', null).execute();
}

/** Ends every open console session of a user (deactivation): a later reactivation does not bring them back. */
export async function revokeUserSessions(db: Queryable, organizationId: string, userId: string): Promise<number> {
  const r = await db.updateTable('consoleSessions').set({ revokedAt: new Date() }).where('organizationId', '=', organizationId).where('userId', '=', userId).where('revokedAt', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function insertLoginLink(db: Queryable, link: { organizationId: string; userId: string; tokenHash: Buffer; expiresAt: Date }): Promise<void> {
  await db.insertInto('consoleLoginLinks').values({ id: uuidv7(), ...link }).execute();
}

/** Marks the link used and answers its user, in one statement: two concurrent uses cannot both win. */
export async function consumeLoginLink(db: Queryable, tokenHash: Buffer) {
  return db
    .updateTable('consoleLoginLinks')
    .set({ usedAt: sql`now()` })
    .where('tokenHash', '=', tokenHash)
    .where('usedAt', 'is', null)
    .where('expiresAt', '>', sql<Date>`now()`)
    .returning(['id', 'organizationId', 'userId'])
    .executeTakeFirst();
}

export async function findActiveUsersByEmail(db: Database, email: string, organizationId?: string) {
  let q = db
    .selectFrom('users')
    .select(['id', 'organizationId', 'email'])
    .where('email', '=', email)
    .where('deactivatedAt', 'is', null);
  if (organizationId) q = q.where('organizationId', '=', organizationId);
  return q.execute();
}

/** The address the serving process answers at (migration 0050), written when it starts. */
export async function recordConsoleAddress(db: Queryable, baseUrl: string): Promise<void> {
  await db
    .insertInto('consoleAddress')
    .values({ baseUrl })
    .onConflict((oc) => oc.column('id').doUpdateSet({ baseUrl, updatedAt: sql`now()` }))
    .execute();
}

export async function consoleAddress(db: Queryable): Promise<string | null> {
  return (await db.selectFrom('consoleAddress').select('baseUrl').executeTakeFirst())?.baseUrl ?? null;
}
