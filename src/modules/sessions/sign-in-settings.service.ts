import type { RequestContext } from '../../platform/context.js';
import type { Database, Queryable } from '../../platform/db/database.js';
import { writeAudit } from '../../platform/audit.js';
import { iso } from '../../platform/time.js';
import { findSignInSettings, revokeApiKeySessions, upsertSignInSettings } from './sign-in-settings.repo.js';
import type { SignInSettingsDto } from './sign-in-settings.schemas.js';

/** Whether the organization lets people sign in to the console with an API key (the default: yes). */
export async function apiKeySignInAllowed(db: Queryable, organizationId: string): Promise<boolean> {
  return (await findSignInSettings(db, organizationId))?.apiKeySignIn ?? true;
}

export function createSignInSettingsService(db: Database) {
  return {
    async get(ctx: RequestContext): Promise<SignInSettingsDto> {
      const row = await findSignInSettings(db, ctx.actor.organizationId);
      return { organizationId: ctx.actor.organizationId, apiKeySignIn: row?.apiKeySignIn ?? true, updatedAt: row ? iso(row.updatedAt) : null };
    },

    /**
     * Turning API-key sign-in off also ends the console sessions already opened with a key, in
     * the same transaction: otherwise the policy would only bind people who sign in later.
     */
    async set(ctx: RequestContext, apiKeySignIn: boolean): Promise<SignInSettingsDto> {
      return db.transaction().execute(async (tx) => {
        const before = await apiKeySignInAllowed(tx, ctx.actor.organizationId);
        const row = await upsertSignInSettings(tx, ctx.actor.organizationId, apiKeySignIn);
        const sessionsEnded = apiKeySignIn ? 0 : await revokeApiKeySessions(tx, ctx.actor.organizationId);
        await writeAudit(tx, ctx, {
          action: 'consoleSignInSettings.update',
          resourceType: 'organization',
          resourceId: ctx.actor.organizationId,
          metadata: { apiKeySignIn, previous: before, sessionsEnded },
        });
        return { organizationId: ctx.actor.organizationId, apiKeySignIn: row.apiKeySignIn, updatedAt: iso(row.updatedAt) };
      });
    },
  };
}
export type SignInSettingsService = ReturnType<typeof createSignInSettingsService>;
