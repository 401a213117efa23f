import type { LanguageModel } from 'ai';
import type { Queryable } from '../../platform/db/database.js';
import type { SecretBox } from '../../platform/secrets.js';
import { findAliasTarget } from './models.repo.js';

/** `strictSchemas`: the provider sends structured-output schemas in OpenAI's strict mode (its SDK's default). */
export type ModelResolution = { ok: true; model: LanguageModel; label: string; strictSchemas: boolean } | { ok: false; message: string };

/**
 * The language model an alias names in an organization, built with the provider's SDK over
 * the given (guarded) fetch. A missing alias is an ordinary outcome with a message a person
 * can act on: the run fails with it, the worker does not crash.
 */
export async function resolveModel(
  deps: { db: Queryable; secrets: SecretBox; fetch: typeof fetch },
  organizationId: string,
  alias: string,
): Promise<ModelResolution> {
  const target = await findAliasTarget(deps.db, organizationId, alias);
  if (!target) {
    return { ok: false, message: `Model alias "${alias}" is not configured: add a provider (POST /api/model-providers) and point the alias at one of its models (PUT /api/model-aliases/${alias})` };
  }
  const { provider, modelId } = target;
  const apiKey = provider.apiKeyCiphertext ? deps.secrets.decrypt(provider.apiKeyCiphertext) : undefined;
  const baseURL = provider.baseUrl ? provider.baseUrl.replace(/\/+$/, '') : undefined;
  const common = { fetch: deps.fetch, ...(baseURL ? { baseURL } : {}) };
  const label = `${provider.name}/${modelId}`;
  // Each provider's SDK is imported when a run first needs it, not at start-up: the API process
  // never does (docs/performance.md, start-up), and a worker loads only the providers it uses.
  switch (provider.type) {
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      // Chat Completions rather than the Responses API: every OpenAI-compatible gateway and
      // proxy (Azure, LiteLLM…) speaks it, and it carries tools and JSON-schema output alike.
      return { ok: true, label, strictSchemas: true, model: createOpenAI({ ...common, apiKey: apiKey ?? '' }).chat(modelId) };
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return { ok: true, label, strictSchemas: false, model: createAnthropic({ ...common, apiKey: apiKey ?? '' })(modelId) };
    }
    case 'openai-compatible': {
      if (!baseURL) return { ok: false, message: `Model provider "${provider.name}" has no base URL` };
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      return {
        ok: true,
        label,
        strictSchemas: true,
        model: createOpenAICompatible({ name: provider.name, baseURL, fetch: deps.fetch, ...(apiKey ? { apiKey } : {}), supportsStructuredOutputs: true })(modelId),
      };
    }
  }
}
