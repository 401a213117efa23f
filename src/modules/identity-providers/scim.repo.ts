import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';

/** SCIM's view of a provider's users: those linked to it, with their user row's fields. */
function usersQuery(db: Queryable, providerId: string) {
  return db
    .selectFrom('identityProviderLinks as l')
    .innerJoin('users as u', 'u.id', 'l.userId')
    .select(['u.id', 'u.email', 'u.name', 'u.deactivatedAt', 'u.createdAt', 'u.updatedAt', 'l.scimExternalId', 'l.scimUserName'])
    .where('l.providerId', '=', providerId);
}
export type ScimUserRow = Awaited<ReturnType<ReturnType<typeof usersQuery>['executeTakeFirstOrThrow']>>;

export async function findScimUser(db: Queryable, providerId: string, userId: string) {
  return usersQuery(db, providerId).where('u.id', '=', userId).executeTakeFirst();
}

export async function listScimUsers(db: Queryable, providerId: string, filter: { attribute: string; value: string } | null, offset: number, count: number) {
  let q = usersQuery(db, providerId);
  if (filter?.attribute === 'userName') q = q.where((eb) => eb.or([eb(eb.fn('lower', ['l.scimUserName']), '=', filter.value.toLowerCase()), eb(eb.fn('lower', ['u.email']), '=', filter.value.toLowerCase())]));
  if (filter?.attribute === 'externalId') q = q.where('l.scimExternalId', '=', filter.value);
  const rows = await q.orderBy('u.createdAt').orderBy('u.id').execute();
  return { total: rows.length, rows: rows.slice(offset, offset + count) };
}

export async function setScimAttributes(db: Queryable, providerId: string, userId: string, attrs: { scimExternalId?: string | null; scimUserName?: string }) {
  if (Object.keys(attrs).length === 0) return;
  await db.updateTable('identityProviderLinks').set(attrs).where('providerId', '=', providerId).where('userId', '=', userId).execute();
}

export async function deleteLink(db: Queryable, providerId: string, userId: string) {
  await db.deleteFrom('identityProviderLinks').where('providerId', '=', providerId).where('userId', '=', userId).execute();
  await db.deleteFrom('scimGroupMembers').where('userId', '=', userId).where('groupId', 'in', db.selectFrom('scimGroups').select('id').where('providerId', '=', providerId)).execute();
}

export async function findGroup(db: Queryable, providerId: string, id: string) {
  return db.selectFrom('scimGroups').selectAll().where('providerId', '=', providerId).where('id', '=', id).executeTakeFirst();
}

export async function listGroups(db: Queryable, providerId: string, filter: { attribute: string; value: string } | null, offset: number, count: number) {
  let q = db.selectFrom('scimGroups').selectAll().where('providerId', '=', providerId);
  if (filter?.attribute === 'displayName') q = q.where('displayName', '=', filter.value);
  if (filter?.attribute === 'externalId') q = q.where('externalId', '=', filter.value);
  const rows = await q.orderBy('createdAt').orderBy('id').execute();
  return { total: rows.length, rows: rows.slice(offset, offset + count) };
}

export async function insertGroup(db: Queryable, g: { providerId: string; displayName: string; externalId: string | null }) {
  const now = new Date();
  return db.insertInto('scimGroups').values({ id: uuidv7(), ...g, createdAt: now, updatedAt: now }).returningAll().executeTakeFirstOrThrow();
}

export async function updateGroup(db: Queryable, id: string, set: { displayName?: string; externalId?: string | null }) {
  await db.updateTable('scimGroups').set({ ...set, updatedAt: new Date() }).where('id', '=', id).execute();
}

export async function deleteGroup(db: Queryable, id: string) {
  await db.deleteFrom('scimGroups').where('id', '=', id).execute();
}

export async function groupMembers(db: Queryable, groupId: string) {
  return db.selectFrom('scimGroupMembers as m').innerJoin('users as u', 'u.id', 'm.userId').select(['u.id', 'u.email']).where('m.groupId', '=', groupId).orderBy('u.email').execute();
}

export async function addMembers(db: Queryable, groupId: string, userIds: readonly string[]) {
  if (userIds.length === 0) return;
  await db.insertInto('scimGroupMembers').values(userIds.map((userId) => ({ groupId, userId }))).onConflict((oc) => oc.doNothing()).execute();
}

export async function removeMembers(db: Queryable, groupId: string, userIds: readonly string[] | 'all') {
  let q = db.deleteFrom('scimGroupMembers').where('groupId', '=', groupId);
  if (userIds !== 'all') {
    if (userIds.length === 0) return;
    q = q.where('userId', 'in', userIds);
  }
  await q.execute();
}

/** The display names of the provider's groups a user is in. */
export async function groupNamesOf(db: Queryable, providerId: string, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('scimGroupMembers as m').innerJoin('scimGroups as g', 'g.id', 'm.groupId').select('g.displayName').where('g.providerId', '=', providerId).where('m.userId', '=', userId).execute();
  return rows.map((r) => r.displayName);
}

/** Of `ids`, those that are users linked to the provider (a member must be one of its users). */
export async function linkedUserIds(db: Queryable, providerId: string, ids: readonly string[]): Promise<string[]> {
  const valid = ids.filter((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)).map((id) => id.toLowerCase());
  if (valid.length === 0) return [];
  const rows = await db.selectFrom('identityProviderLinks').select('userId').where('providerId', '=', providerId).where('userId', 'in', valid).execute();
  return rows.map((r) => r.userId);
}
