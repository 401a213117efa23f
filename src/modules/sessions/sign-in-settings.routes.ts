import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { withErrors } from '../../platform/http/responses.js';
import { SignInSettingsBody, SignInSettingsSchema } from './sign-in-settings.schemas.js';
import type { SignInSettingsService } from './sign-in-settings.service.js';

/** The organization's console sign-in policy, set next to its identity providers (same permission). */
export function registerSignInSettingsRoutes(root: FastifyInstance, service: SignInSettingsService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Users'];
  const manage = { permissions: ['setting.identityProviders.manage' as const] };

  app.get('/api/console-sign-in-settings', {
    config: manage,
    schema: {
      operationId: 'getConsoleSignInSettings',
      tags,
      summary: 'How people may sign in to the console',
      description: 'Whether API-key sign-in to the console is allowed. Sign-in through the organization\'s identity providers and `rampart admin login-link` are always allowed.',
      response: withErrors({ 200: SignInSettingsSchema }),
    },
  }, async (req) => service.get(contextOf(req)));

  app.put('/api/console-sign-in-settings', {
    config: manage,
    schema: {
      operationId: 'setConsoleSignInSettings',
      tags,
      summary: 'Allow or refuse API-key sign-in to the console',
      description:
        'With `apiKeySignIn: false`, `POST /api/session` answers 403 for the organization\'s keys and the console sessions already opened with a key end at once; people sign in through the identity provider (`GET /auth/oidc/providers`), the operator with `rampart admin login-link`. API keys keep working for the API itself (`Authorization: Bearer`). Audited as `consoleSignInSettings.update`.',
      body: SignInSettingsBody,
      response: withErrors({ 200: SignInSettingsSchema }),
    },
  }, async (req) => service.set(contextOf(req), req.body.apiKeySignIn));
}
