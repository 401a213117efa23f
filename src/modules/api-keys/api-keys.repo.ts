import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import type { GeneratedKey } from '../../platform/auth/api-keys.js';

export interface NewApiKey {
  organizationId: string;
  userId: string;
  name: string;
  generated: Pick<GeneratedKey, 'prefix' | 'hash'>;
  expiresAt?: Date | null;
}

/** The one insert of an API key (POST /api-keys and an organization's initial admin key); answers its id. Only the hash is stored. */
export async function insertApiKey(tx: Queryable, key: NewApiKey, id = uuidv7()): Promise<string> {
  await tx
    .insertInto('apiKeys')
    .values({ id, organizationId: key.organizationId, userId: key.userId, name: key.name, prefix: key.generated.prefix, keyHash: key.generated.hash, createdAt: new Date(), expiresAt: key.expiresAt ?? null })
    .execute();
  return id;
}
