import type { SecretBox } from '../../../platform/secrets.js';
import type { TriggerPutT, TriggersService } from '../../triggers/index.js';
import { TriggerSpec } from '../config.schemas.js';
import { SECRET_GENERATED, SECRET_MASK, URL_GENERATED } from '../plan.fns.js';
import { idOf, type ApplyStep, type Desired, type KindHandler } from './kind.js';

/**
 * Triggers are named within the organization (a trigger without a name, made by hand, is left
 * out of plans and exports). A webhook trigger's own `secret` is kept when the document omits it
 * (a new one is generated on create: read it with rotate-secret); `signingSecret` is declarative.
 */
function input(d: Desired): TriggerPutT {
  const { agent: _agent, ...spec } = d.spec as TriggerPutT & { agent: string };
  return { ...spec, name: d.name };
}

export function triggerKind(triggers: TriggersService, deps: { secrets: SecretBox }): KindHandler {
  const decrypt = (c: string | null) => (c ? deps.secrets.decrypt(c) : null);
  const put = (step: ApplyStep, d: Desired, id: string | null) => triggers.put(step.ctx, idOf(step.ids, 'Agent', String(d.spec.agent)), id, input(d), step.opts);
  return {
    kind: 'Trigger',
    permissions: { read: ['agent.read'], create: ['agent.manage'], update: ['agent.manage'], remove: ['agent.manage'] },
    schema: TriggerSpec,
    parse(_name, spec) {
      const parsed = TriggerSpec.safeParse(spec);
      if (!parsed.success) return parsed;
      const t = parsed.data;
      const cron = t.source === 'cron';
      if (cron && !t.cronSchedule) return TriggerSpec.refine(() => false, { path: ['cronSchedule'], message: 'is required for a cron trigger' }).safeParse(spec);
      // What the stored form of each source holds, so an unchanged document compares equal.
      return {
        success: true,
        data: {
          ...t,
          cronSchedule: cron ? t.cronSchedule : null,
          // UTC is the default: a document that names none and one that says null are the same.
          timezone: cron && t.timezone ? t.timezone : undefined,
          input: cron ? (t.input ?? null) : null,
          inputMapping: cron ? null : t.inputMapping,
          deliveryIdPointer: cron ? null : t.deliveryIdPointer,
          ...(cron ? { secret: undefined } : {}),
        },
      };
    },
    generated(current, d) {
      if (d.spec.source === 'cron') return {};
      // A new trigger, or one moved to another agent or source (put replaces it): a new id, so a new URL.
      const replaced = !current || current.spec.source !== d.spec.source || current.spec.agent !== d.spec.agent;
      const stored = current?.secrets.secret ?? null;
      return {
        ...(d.spec.secret === undefined && (replaced || stored === null) ? { secret: { from: stored === null ? null : SECRET_MASK, to: SECRET_GENERATED } } : {}),
        ...(replaced ? { webhookUrl: { from: current ? '(the current URL)' : null, to: URL_GENERATED } } : {}),
      };
    },
    references: (spec) => (typeof spec.agent === 'string' ? [{ path: ['agent'], kind: 'Agent', name: spec.agent }] : []),
    async current(ctx, names) {
      const agents = names.get('Agent') ?? new Map<string, string>();
      const rows = await triggers.organizationTriggers(ctx);
      return rows
        .filter((r) => r.name !== '')
        .map((r) => {
          const { type: _type, ...additionalFields } = r.additionalFields;
          return {
            id: r.id,
            name: r.name,
            owner: r.agentId,
            // Only the fields of its source: the spec is a valid document as it stands (export writes it).
            spec: {
              agent: agents.get(r.agentId) ?? r.agentId,
              source: r.source,
              enabled: r.enabled,
              ...(r.source === 'cron' ? { cronSchedule: r.cronSchedule, ...(r.cronTimezone ? { timezone: r.cronTimezone } : {}), input: r.input ?? null } : { inputMapping: r.inputMapping, deliveryIdPointer: r.deliveryIdPointer }),
              additionalFields,
              createAlert: r.createAlert,
              routeAlerts: r.routeAlerts,
              alertMapping: r.alertMapping,
            },
            secrets: { secret: decrypt(r.secretCiphertext), signingSecret: decrypt(r.signingSecretCiphertext) },
            managedBy: r.managedBy,
            managedSource: r.managedSource,
          };
        });
    },
    create: async (step, d) => (await put(step, d, null)).id,
    async update(step, c, d) {
      await put(step, d, c.id);
    },
    async remove(step, c) {
      await triggers.remove(step.ctx, c.owner!, c.id, step.opts);
    },
  };
}
