import { z } from 'zod';
import { LimitOffsetQuery } from '../../platform/http/pagination.js';

export const ApiKeySchema = z
  .object({
    id: z.uuid(),
    organizationId: z.uuid(),
    userId: z.uuid(),
    name: z.string(),
    prefix: z.string().describe('The non-secret part of the key (`rmp_<prefix>_…`), to recognise it'),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable().describe('Updated at most once a minute'),
    expiresAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKeyDto = z.infer<typeof ApiKeySchema>;

export const ApiKeyListQuery = LimitOffsetQuery.extend({
  includeRevoked: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
});
export const ApiKeyList = z.object({ apiKeys: z.array(ApiKeySchema), totalCount: z.number().int() });

export const CreateApiKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(255),
  userId: z
    .uuid()
    .optional()
    .describe('The user the key acts as (default: the caller). Another user must be active, in this organization, and have no permission the caller lacks (403 otherwise).'),
  expiresAt: z.iso.datetime({ offset: true }).optional().describe('Optional expiry (ISO 8601); after it the key answers 401'),
});

export const CreatedApiKey = z.object({
  apiKey: ApiKeySchema,
  key: z.string().describe('The key itself. Shown once: only its hash is stored.'),
});

export const RevokeResult = z.object({ success: z.boolean(), apiKey: ApiKeySchema });
