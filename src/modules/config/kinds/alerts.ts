import { stringify } from 'yaml';
import { z } from 'zod';
import { compileSigma, readTests, runTests, sigmaDetectionOf, type CodeDetectionsService, type RoutingService } from '../../alerts/index.js';
import { TACTICS } from '../../intel/index.js';
import { CodeDetectionSpec, SigmaCodeDetectionSpec, TRIAGE_ROUTES_NAME, TriageRoutesSpec } from '../config.schemas.js';
import { idOf, type ApplyStep, type Desired, type KindHandler, type Reference } from './kind.js';

type CodeDetectionSpecT = z.infer<typeof CodeDetectionSpec>;
type TriageRoutesSpecT = z.infer<typeof TriageRoutesSpec>;

const detectionInput = (d: Desired) => {
  const s = d.spec as CodeDetectionSpecT;
  return { ...s, name: d.name, severity: s.severity ?? 'medium' };
};

const TACTIC_NAMES: ReadonlySet<string> = new Set(TACTICS.map((t) => t.shortname));

/** A spec written as `sigma: <rule>`: the rule's fields, as the Sigma import maps them (the plan compares those). */
function sigmaSpec(spec: unknown): z.ZodSafeParseResult<Record<string, unknown>> {
  const parsed = SigmaCodeDetectionSpec.safeParse(spec);
  if (!parsed.success) return parsed;
  const out = sigmaDetectionOf(parsed.data.sigma, TACTIC_NAMES);
  if ('error' in out) return { success: false, error: new z.ZodError([{ code: 'custom', path: ['sigma'], message: out.error, input: parsed.data.sigma }]) as z.ZodError<Record<string, unknown>> };
  const failures = sigmaTestFailures(parsed.data.sigma, parsed.data.tests);
  if (failures.length) return { success: false, error: new z.ZodError(failures) as z.ZodError<Record<string, unknown>> };
  const { name: _title, ...fields } = out.detection;
  const query = withTests(fields.query, parsed.data.tests);
  if (query.length > MAX_QUERY) return { success: false, error: new z.ZodError([{ code: 'custom', path: ['tests'], message: `the rule and its tests together exceed ${MAX_QUERY} characters (the detection's query); shorten the tests' events`, input: parsed.data.tests }]) as z.ZodError<Record<string, unknown>> };
  return { success: true, data: { ...fields, query } };
}

const MAX_QUERY = 100_000;

/**
 * `spec.tests` kept in the stored rule text as a `tests:` key (the form a plain Sigma file uses),
 * so the detection carries its tests: its console page and GET /api/code-detections/{id}/tests
 * run them. A rule that already writes its own `tests:` keeps them as written.
 */
function withTests(query: string, tests: unknown[] | undefined): string {
  if (!tests?.length || /^tests\s*:/m.test(query)) return query;
  return `${query.trimEnd()}\n${stringify({ tests })}`;
}

/**
 * Tests as code: the rule must compile in the Sigma engine, and each test must pass. A failure is
 * an issue at `tests.<i>` (the CLI turns the path into file:line) naming the rule and the event.
 */
function sigmaTestFailures(sigma: string, raw: unknown): z.core.$ZodIssue[] {
  const unit = compileSigma(sigma);
  const refused = unit.refusals[0];
  if (refused) return [{ code: 'custom', path: ['sigma'], message: `the Sigma engine refuses ${refused.rule}: ${refused.construct} (line ${refused.line} of the rule): ${refused.message}`, input: sigma }];
  const { tests } = readTests(raw);
  const title = unit.correlations[0]?.title ?? unit.rules[0]?.title ?? '';
  return runTests(unit, tests).flatMap((o, i) =>
    o.passed
      ? []
      : [{ code: 'custom' as const, path: ['tests', i], message: `test "${o.name}" failed: rule "${title}" expected ${tests[i]!.expect}, event ${o.failingIndex}: ${JSON.stringify(o.failingEvent).slice(0, 500)}`, input: tests[i] }],
  );
}

export function codeDetectionKind(detections: CodeDetectionsService): KindHandler {
  return {
    kind: 'CodeDetection',
    permissions: { read: ['alert.read'], create: ['alert.manage'], update: ['alert.manage'], remove: ['alert.manage'] },
    schema: z.union([CodeDetectionSpec, SigmaCodeDetectionSpec]),
    parse(_name, spec) {
      if (spec !== null && typeof spec === 'object' && 'sigma' in spec) return sigmaSpec(spec);
      const parsed = CodeDetectionSpec.safeParse(spec);
      if (!parsed.success) return parsed;
      const d = parsed.data;
      return { success: true, data: { ...d, ruleId: d.ruleId ?? null, description: d.description ?? '', logTable: d.logTable ?? null, query: d.query ?? null } };
    },
    references: () => [],
    async current(ctx) {
      const { codeDetections } = await detections.list(ctx, Number.MAX_SAFE_INTEGER, 0);
      return codeDetections.map((c) => ({
        id: c.id,
        name: c.name,
        spec: { ruleId: c.ruleId, description: c.description, severity: c.severity, logTable: c.logTable, query: c.query, attackTechniques: c.attackTechniques, attackTactics: c.attackTactics, status: c.status, tags: c.tags },
        secrets: {},
        managedBy: c.managedBy,
        managedSource: c.managedSource,
      }));
    },
    create: async (step, d) => (await detections.create(step.ctx, detectionInput(d), step.opts)).id,
    async update(step, c, d) {
      await detections.update(step.ctx, c.id, detectionInput(d), step.opts);
    },
    async remove(step, c) {
      await detections.remove(step.ctx, c.id, step.opts);
    },
  };
}

/** The organization's routing is one document, `TriageRoutes/default`; deleting it (prune) empties the routes. */
export function triageRoutesKind(routing: RoutingService): KindHandler {
  const replace = (step: ApplyStep, d: Desired) => {
    const s = d.spec as TriageRoutesSpecT;
    const agent = (name: string | null) => (name === null ? null : idOf(step.ids, 'Agent', name));
    return routing.replace(step.ctx, {
      routes: s.routes.map((r) => ({
        name: r.name,
        enabled: r.enabled,
        responseAgentId: agent(r.responseAgent)!,
        conditions: r.conditions.map((c) => (c.type === 'codeDetection' ? { type: c.type, codeDetectionIds: c.codeDetections.map((n) => idOf(step.ids, 'CodeDetection', n)) } : c)),
      })),
      defaultResponseAgentId: agent(s.defaultResponseAgent),
      huntResponseAgentId: agent(s.huntResponseAgent),
    }, step.opts);
  };
  return {
    kind: 'TriageRoutes',
    apiFields: { responseAgentId: 'responseAgent', defaultResponseAgentId: 'defaultResponseAgent', huntResponseAgentId: 'huntResponseAgent', codeDetectionIds: 'codeDetections' },
    permissions: { read: ['alert.read'], create: ['alert.manage'], update: ['alert.manage'], remove: ['alert.manage'] },
    schema: TriageRoutesSpec,
    parse(name, spec) {
      if (name !== TRIAGE_ROUTES_NAME) return TriageRoutesSpec.refine(() => false, { message: `TriageRoutes is one per organization: its metadata.name must be "${TRIAGE_ROUTES_NAME}"` }).safeParse(spec);
      return TriageRoutesSpec.safeParse(spec);
    },
    references(spec) {
      const refs: Reference[] = [];
      const agent = (path: Reference['path'], name: unknown) => typeof name === 'string' && refs.push({ path, kind: 'Agent', name });
      agent(['defaultResponseAgent'], spec.defaultResponseAgent);
      agent(['huntResponseAgent'], spec.huntResponseAgent);
      (Array.isArray(spec.routes) ? spec.routes : []).forEach((r: Record<string, unknown>, i: number) => {
        agent(['routes', i, 'responseAgent'], r?.responseAgent);
        (Array.isArray(r?.conditions) ? r.conditions : []).forEach((c: Record<string, unknown>, j: number) => {
          if (Array.isArray(c?.codeDetections)) c.codeDetections.forEach((n, k) => refs.push({ path: ['routes', i, 'conditions', j, 'codeDetections', k], kind: 'CodeDetection', name: String(n) }));
        });
      });
      return refs;
    },
    async current(ctx, names) {
      const row = await routing.stored(ctx);
      const routes = (row?.routes ?? []) as Array<{ name: string; enabled: boolean; responseAgentId: string; conditions: Array<Record<string, unknown>> }>;
      // Never saved, or emptied by a prune and no longer managed: nothing to describe.
      if (!row || (routes.length === 0 && !row.defaultResponseAgentId && !row.huntResponseAgentId && row.managedBy === null)) return [];
      const agents = names.get('Agent') ?? new Map<string, string>();
      const detections = names.get('CodeDetection') ?? new Map<string, string>();
      const agentName = (id: string | null) => (id === null ? null : (agents.get(id) ?? id));
      return [{
        id: TRIAGE_ROUTES_NAME,
        name: TRIAGE_ROUTES_NAME,
        spec: {
          routes: routes.map((r) => ({
            name: r.name,
            enabled: r.enabled,
            conditions: r.conditions.map(({ codeDetectionIds, ...c }) => (c.type === 'codeDetection' ? { ...c, codeDetections: (codeDetectionIds as string[]).map((id) => detections.get(id) ?? id) } : c)),
            responseAgent: agentName(r.responseAgentId),
          })),
          defaultResponseAgent: agentName(row.defaultResponseAgentId),
          huntResponseAgent: agentName(row.huntResponseAgentId),
        },
        secrets: {},
        managedBy: row.managedBy,
        managedSource: row.managedSource,
      }];
    },
    create: async (step, d) => (await replace(step, d), TRIAGE_ROUTES_NAME),
    async update(step, _c, d) {
      await replace(step, d);
    },
    async remove(step) {
      await routing.replace(step.ctx, { routes: [], defaultResponseAgentId: null, huntResponseAgentId: null }, { tx: step.tx, managed: null, force: true });
    },
  };
}
