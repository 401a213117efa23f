import type { SecretBox } from '../../../platform/secrets.js';
import type { ModelsService, ProviderInputT } from '../../models/index.js';
import { ModelSpec } from '../config.schemas.js';
import type { ApplyStep, Desired, KindHandler } from './kind.js';

/**
 * A Model document is a model alias with its provider described inline. The provider is created
 * or brought in line by the first Model naming it; providers stay when their models go (other
 * aliases made by hand may use them): delete them through the API.
 */
type ModelSpecT = { modelId: string; provider: ProviderInputT };

export function modelKind(models: ModelsService, deps: { secrets: SecretBox }): KindHandler {
  async function providerId(step: ApplyStep, provider: ProviderInputT): Promise<string> {
    const { providers } = await models.aliasesWithProviders(step.ctx, step.tx);
    const existing = providers.find((p) => p.name === provider.name);
    const input = { ...provider, baseUrl: provider.baseUrl ?? null, apiKey: provider.apiKey ?? null };
    if (!existing) return (await models.createProvider(step.ctx, input, step.opts)).id;
    const storedKey = existing.apiKeyCiphertext ? deps.secrets.decrypt(existing.apiKeyCiphertext) : null;
    if (existing.type !== input.type || existing.baseUrl !== input.baseUrl || storedKey !== input.apiKey) {
      await models.updateProvider(step.ctx, existing.id, input, step.opts);
    }
    return existing.id;
  }

  async function put(step: ApplyStep, d: Desired): Promise<string> {
    const spec = d.spec as ModelSpecT;
    await models.putAlias(step.ctx, d.name, { providerId: await providerId(step, spec.provider), modelId: spec.modelId }, step.opts);
    return d.name;
  }

  return {
    kind: 'Model',
    apiFields: { providerId: 'provider' },
    permissions: { read: ['agent.read'], create: ['agent.manage'], update: ['agent.manage'], remove: ['agent.manage'] },
    schema: ModelSpec,
    parse(_name, spec) {
      const parsed = ModelSpec.safeParse(spec);
      if (!parsed.success) return parsed;
      const { provider } = parsed.data;
      return { success: true, data: { ...parsed.data, provider: { ...provider, baseUrl: provider.baseUrl ?? null } } };
    },
    references: () => [],
    async current(ctx) {
      const { aliases, providers } = await models.aliasesWithProviders(ctx);
      const byId = new Map(providers.map((p) => [p.id, p]));
      return aliases.map((a) => {
        const p = byId.get(a.providerId)!;
        return {
          id: a.alias,
          name: a.alias,
          spec: { modelId: a.modelId, provider: { name: p.name, type: p.type, baseUrl: p.baseUrl } },
          secrets: { 'provider.apiKey': p.apiKeyCiphertext ? deps.secrets.decrypt(p.apiKeyCiphertext) : null },
          managedBy: a.managedBy,
          managedSource: a.managedSource,
        };
      });
    },
    create: put,
    async update(step, _c, d) {
      await put(step, d);
    },
    async remove(step, c) {
      await models.removeAlias(step.ctx, c.name, step.opts);
    },
  };
}
