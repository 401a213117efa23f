import { sql, type Selectable } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import type { IdentityProvidersTable } from './identity-providers.tables.js';

export type ProviderRow = Selectable<IdentityProvidersTable>;

export async function findProviderRow(db: Queryable, organizationId: string, id: string): Promise<ProviderRow | undefined> {
  return db.selectFrom('identityProviders').selectAll().where('organizationId', '=', organizationId).where('id', '=', id).executeTakeFirst();
}

/** A provider by id alone: the sign-in routes run before anyone is signed in. */
export async function findProviderById(db: Queryable, id: string): Promise<ProviderRow | undefined> {
  return db.selectFrom('identityProviders').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listProviderRows(db: Queryable, organizationId: string): Promise<ProviderRow[]> {
  return db.selectFrom('identityProviders').selectAll().where('organizationId', '=', organizationId).orderBy('name').orderBy('id').execute();
}

/** The providers the sign-in screen of one organization offers (names and ids only: it is public). */
export async function listSignInProviders(db: Queryable, organizationId: string) {
  return db.selectFrom('identityProviders').select(['id', 'name']).where('organizationId', '=', organizationId).orderBy('name').orderBy('id').limit(100).execute();
}

export async function findProviderByScimTokenHash(db: Queryable, hash: Buffer): Promise<ProviderRow | undefined> {
  return db.selectFrom('identityProviders').selectAll().where('scimTokenHash', '=', hash).executeTakeFirst();
}

/** The roles of an organization among `ids` (a mapping or default role must be one of them): the roles module's reader. */
export { rolesOfOrganization as rolesOf } from '../roles/index.js';

export async function insertLoginState(db: Queryable, s: { stateHash: Buffer; providerId: string; codeVerifier: string; nonce: string; expiresAt: Date }): Promise<void> {
  await db.insertInto('oidcLoginStates').values(s).execute();
  // Abandoned sign-ins: swept as new ones start, so the table never grows past a few minutes' worth.
  await db.deleteFrom('oidcLoginStates').where('expiresAt', '<', sql<Date>`now() - interval '1 hour'`).execute();
}

/** Takes the state once: a replayed callback finds nothing. */
export async function consumeLoginState(db: Queryable, stateHash: Buffer) {
  return db
    .deleteFrom('oidcLoginStates')
    .where('stateHash', '=', stateHash)
    .where('expiresAt', '>', sql<Date>`now()`)
    .returning(['providerId', 'codeVerifier', 'nonce'])
    .executeTakeFirst();
}

export async function findLinkBySubject(db: Queryable, providerId: string, subject: string) {
  return db.selectFrom('identityProviderLinks').selectAll().where('providerId', '=', providerId).where('subject', '=', subject).executeTakeFirst();
}

export async function findLinkOfUser(db: Queryable, userId: string) {
  return db.selectFrom('identityProviderLinks').selectAll().where('userId', '=', userId).executeTakeFirst();
}

export async function insertLink(db: Queryable, link: { providerId: string; organizationId: string; userId: string; subject: string | null; scimExternalId?: string | null; scimUserName?: string | null }) {
  await db.insertInto('identityProviderLinks').values(link).execute();
}

export async function setLinkSubject(db: Queryable, providerId: string, userId: string, subject: string): Promise<void> {
  await db.updateTable('identityProviderLinks').set({ subject }).where('providerId', '=', providerId).where('userId', '=', userId).execute();
}
