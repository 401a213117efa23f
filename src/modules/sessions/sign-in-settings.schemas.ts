import { z } from 'zod';

export const SignInSettingsBody = z.strictObject({
  apiKeySignIn: z
    .boolean()
    .describe('Whether people may sign in to the console with an API key. `false`: only through the organization\'s identity provider (and `rampart admin login-link`, the operator\'s way in); turning it off ends the console sessions opened with a key. API keys keep working for the API'),
});

export const SignInSettingsSchema = z
  .object({
    organizationId: z.uuid(),
    apiKeySignIn: z.boolean().describe('Whether API-key sign-in to the console is allowed (default true)'),
    updatedAt: z.string().nullable().describe('When it was last changed; null: never changed (the default)'),
  })
  .meta({ id: 'ConsoleSignInSettings' });
export type SignInSettingsDto = z.infer<typeof SignInSettingsSchema>;
