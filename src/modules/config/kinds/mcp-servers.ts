import type { Database } from '../../../platform/db/database.js';
import type { SecretBox } from '../../../platform/secrets.js';
import { listMcpServerRows, type McpServerInputT, type McpServersService } from '../../tools/index.js';
import { McpServerSpec } from '../config.schemas.js';
import type { Desired, KindHandler } from './kind.js';

/** Every field given: an omitted token clears it, an omitted `enabled` is true. */
function input(d: Desired): McpServerInputT {
  const spec = d.spec as Omit<McpServerInputT, 'name'>;
  return { ...spec, name: d.name, token: spec.token ?? null, enabled: spec.enabled ?? true };
}

export function mcpServerKind(servers: McpServersService, deps: { db: Database; secrets: SecretBox }): KindHandler {
  return {
    kind: 'McpServer',
    permissions: { read: ['tool.read'], create: ['tool.manage'], update: ['tool.manage'], remove: ['tool.manage'] },
    schema: McpServerSpec,
    parse(name, spec) {
      const parsed = McpServerSpec.safeParse(spec);
      if (!parsed.success) return parsed;
      return { success: true, data: { ...parsed.data, enabled: parsed.data.enabled ?? true } };
    },
    references: () => [],
    async current(ctx) {
      return (await listMcpServerRows(deps.db, ctx.actor.organizationId)).map((r) => ({
        id: r.id,
        name: r.name,
        spec: { url: r.url, enabled: r.enabled },
        secrets: { token: r.tokenCiphertext ? deps.secrets.decrypt(r.tokenCiphertext) : null },
        managedBy: r.managedBy,
        managedSource: r.managedSource,
      }));
    },
    create: async (step, d) => (await servers.create(step.ctx, input(d), step.opts)).id,
    async update(step, c, d) {
      await servers.update(step.ctx, c.id, input(d), step.opts);
    },
    async remove(step, c) {
      await servers.remove(step.ctx, c.id, step.opts);
    },
  };
}
