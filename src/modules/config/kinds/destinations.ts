import type { Database } from '../../../platform/db/database.js';
import type { SecretBox } from '../../../platform/secrets.js';
import { listDestinationRows, type DestinationInputT, type DestinationsService } from '../../destinations/index.js';
import { OutputDestinationSpec } from '../config.schemas.js';
import type { Desired, KindHandler } from './kind.js';

/** The API's write shape: the document's name, and every field given (an omitted token clears it). */
function input(d: Desired): DestinationInputT {
  const spec = d.spec as DestinationInputT;
  return { ...spec, name: d.name, eventSubscriptions: spec.eventSubscriptions ?? [], ...(spec.type === 'teams' ? {} : { token: (spec as { token?: string | null }).token ?? null }) } as DestinationInputT;
}

export function outputDestinationKind(destinations: DestinationsService, deps: { db: Database; secrets: SecretBox }): KindHandler {
  return {
    kind: 'OutputDestination',
    permissions: { read: ['destination.read'], create: ['destination.manage'], update: ['destination.manage'], remove: ['destination.manage'] },
    schema: OutputDestinationSpec,
    parse(name, spec) {
      const parsed = OutputDestinationSpec.safeParse(spec && typeof spec === 'object' ? { ...spec, name } : spec);
      if (!parsed.success) return parsed;
      const { name: _n, ...rest } = parsed.data;
      return { success: true, data: { ...rest, eventSubscriptions: rest.eventSubscriptions ?? [] } };
    },
    references: () => [],
    async current(ctx) {
      const rows = await listDestinationRows(deps.db, ctx.actor.organizationId);
      return rows.map((r) => ({
        id: r.id,
        name: r.name,
        spec: { type: r.type, config: r.config, eventSubscriptions: r.eventSubscriptions },
        secrets: { token: r.tokenCiphertext ? deps.secrets.decrypt(r.tokenCiphertext) : null },
        managedBy: r.managedBy,
        managedSource: r.managedSource,
      }));
    },
    async create(step, d) {
      return (await destinations.create(step.ctx, input(d), step.opts)).id;
    },
    async update(step, c, d) {
      await destinations.update(step.ctx, c.id, input(d), step.opts);
    },
    async remove(step, c) {
      await destinations.remove(step.ctx, c.id, step.opts);
    },
  };
}
