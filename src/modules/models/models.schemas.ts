import { z } from 'zod';
import { managedFields } from '../../platform/managed.js';
import { endpointUrl } from '../../platform/http/url-schemas.js';

/**
 * Model providers (OpenAI, Anthropic, or any OpenAI-compatible endpoint such as Ollama or vLLM)
 * and the aliases agents name (`default`, `fast`…). Provider API keys are write-only and
 * encrypted at rest; `hasApiKey` tells whether one is stored.
 */
const baseUrl = endpointUrl().describe('API base URL, e.g. `https://api.openai.com/v1` or `http://ollama.internal:11434/v1`');

export const ProviderType = z.enum(['openai', 'anthropic', 'openai-compatible']);

export const ProviderInput = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a slug (lowercase letters, digits, _ -)'),
    type: ProviderType,
    baseUrl: baseUrl.nullable().optional().describe('Required for `openai-compatible`; optional for the others (their public API by default)'),
    apiKey: z.string().min(1).max(4096).nullable().optional().describe('Write-only. On PUT, omitting it keeps the stored key, null clears it; a change sending it to another origin (`baseUrl`, or `type` with its public API) needs it again (400 naming `apiKey`)'),
  })
  .superRefine((p, ctx) => {
    if (p.type === 'openai-compatible' && !p.baseUrl) ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'is required for an openai-compatible provider' });
  });
export type ProviderInputT = z.infer<typeof ProviderInput>;

export const Provider = z.object({
  id: z.uuid(),
  name: z.string(),
  type: ProviderType,
  baseUrl: z.string().nullable().describe('Credentials inside it (`?key=`…) are `REDACTED` for callers without `agent.manage`'),
  hasApiKey: z.boolean(),
  ...managedFields,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ProviderDto = z.infer<typeof Provider>;
export const ProviderList = z.object({ providers: z.array(Provider) });

export const AliasParams = z.object({ alias: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'must be a model alias (lowercase letters, digits, . _ -)') });
export const AliasInput = z.strictObject({
  providerId: z.uuid(),
  modelId: z.string().min(1).max(256).describe('The provider\'s model id, e.g. `gpt-4o-mini`, `claude-sonnet-4-5`, `llama3.1:8b`'),
});
export const Alias = z.object({ alias: z.string(), providerId: z.uuid(), providerName: z.string(), providerType: ProviderType, modelId: z.string(), ...managedFields, updatedAt: z.string() });
export type AliasDto = z.infer<typeof Alias>;
export const AliasList = z.object({ aliases: z.array(Alias) });
