import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';

/** How the organization's people may sign in to the console (migration 0141); no row: the defaults. */
export async function findSignInSettings(db: Queryable, organizationId: string) {
  return db.selectFrom('consoleSignInSettings').select(['apiKeySignIn', 'updatedAt']).where('organizationId', '=', organizationId).executeTakeFirst();
}

export async function upsertSignInSettings(db: Queryable, organizationId: string, apiKeySignIn: boolean) {
  return db
    .insertInto('consoleSignInSettings')
    .values({ organizationId, apiKeySignIn })
    .onConflict((oc) => oc.column('organizationId').doUpdateSet({ apiKeySignIn, updatedAt: sql`now()` }))
    .returning(['apiKeySignIn', 'updatedAt'])
    .executeTakeFirstOrThrow();
}

/** Ends the organization's console sessions opened with an API key (API-key sign-in turned off); answers how many. */
export async function revokeApiKeySessions(db: Queryable, organizationId: string): Promise<number> {
  const r = await db
    .updateTable('consoleSessions')
    .set({ revokedAt: new Date() })
    .where('organizationId', '=', organizationId)
    .where('method', '=', 'api_key')
    .where('revokedAt', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
