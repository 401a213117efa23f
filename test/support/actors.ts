import { uuidv7 } from 'uuidv7';
import type { Database } from '../../src/platform/db/database.js';
import { generateApiKey } from '../../src/platform/auth/api-keys.js';
import type { Permission } from '../../src/platform/auth/permissions.js';

export interface TestUser {
  userId: string;
  roleId: string;
  keyId: string;
  key: string;
}

/** A user in `organizationId` whose custom role grants exactly `permissions`, with one API key. */
export async function userWithPermissions(db: Database, organizationId: string, permissions: Permission[]): Promise<TestUser> {
  const roleId = uuidv7();
  const userId = uuidv7();
  const keyId = uuidv7();
  const now = new Date();
  const generated = generateApiKey();
  await db.insertInto('roles').values({ id: roleId, organizationId, name: `role-${roleId}`, permissions, createdAt: now, updatedAt: now }).execute();
  await db.insertInto('users').values({ id: userId, organizationId, email: `${userId}@example.test`, roleId, createdAt: now, updatedAt: now }).execute();
  await db.insertInto('apiKeys').values({ id: keyId, organizationId, userId, name: 'test', prefix: generated.prefix, keyHash: generated.hash, createdAt: now }).execute();
  return { userId, roleId, keyId, key: generated.key };
}
