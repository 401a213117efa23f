import { z } from 'zod';
import { agentFields } from '../agents/index.js';
import { DestinationInput } from '../destinations/index.js';
import { ProviderInput } from '../models/index.js';
import { TriggerPut } from '../triggers/index.js';
import { McpServerInput } from '../tools/index.js';
import { CodeDetectionInput, RouteCondition, RouteInput } from '../alerts/index.js';

/**
 * Agents as code (issue 30, docs/agents-as-code.md): documents in the shape operators know from
 * Kubernetes — `apiVersion: rampart/v1`, `kind`, `metadata.name`, `spec` — whose specs are the
 * API's own write schemas with references by name instead of ids. Names are the identity within
 * an organization and kind.
 */
export const API_VERSION = 'rampart/v1';
export const KINDS = ['Model', 'McpServer', 'OutputDestination', 'CodeDetection', 'Agent', 'Trigger', 'TriageRoutes'] as const;
export type Kind = (typeof KINDS)[number];

const refName = z.string().trim().min(1).max(255);

/**
 * A field of a kind's spec that holds (or may hold) a credential. Only these fields resolve
 * `${env:…}`/`${file:…}` references (`rampart apply`), are compared only for callers with the
 * kind's manage permission, are never shown in a plan, and become `${env:…}` placeholders in an
 * export. Everywhere else a reference is plain text.
 */
export interface SecretField {
  /** Under the document's `spec`. */
  path: readonly string[];
  /** Omitted from a document: keep what is stored (a generated trigger secret) instead of clearing it. Export still writes its placeholder. */
  keepWhenOmitted?: boolean;
  /**
   * A URL Rampart calls, which may carry its credential (`?sig=`, `?apikey=`, a Slack webhook
   * path, `user:pass@`): stored with the resource, shown redacted, and a secret only when it
   * carries one.
   */
  url?: boolean;
}

/** Every kind's secret fields: the one list the CLI (where references resolve) and the server (plan, export) share. */
export const SECRET_FIELDS: Record<Kind, readonly SecretField[]> = {
  Model: [{ path: ['provider', 'apiKey'] }, { path: ['provider', 'baseUrl'], url: true }],
  McpServer: [{ path: ['token'] }, { path: ['url'], url: true }],
  OutputDestination: [{ path: ['token'] }, { path: ['config', 'url'], url: true }, { path: ['config', 'apiBaseUrl'], url: true }, { path: ['config', 'tenantUrl'], url: true }],
  CodeDetection: [],
  Agent: [],
  Trigger: [{ path: ['secret'], keepWhenOmitted: true }, { path: ['signingSecret'] }],
  TriageRoutes: [],
};

/** The URLs of a kind that Rampart calls (checked against forbidden addresses at plan time). */
export const outboundUrlPaths = (kind: Kind): string[][] => SECRET_FIELDS[kind].filter((f) => f.url).map((f) => [...f.path]);

/**
 * An agent: the API's fields, `model` for `modelAlias`, `outputDestinations` by name for
 * `outputDestinationIds`. `builtinTools`: the service's built-in tool names (the composition
 * root's tool catalog), which `toolNames` may list, as through the API.
 */
export function agentSpec(builtinTools: readonly string[]) {
  const { name: _agentName, modelAlias, outputDestinationIds: _destinationIds, ...agentRest } = agentFields(builtinTools);
  return z.strictObject({
    ...agentRest,
    model: modelAlias.describe('A Model document\'s name (a model alias); `default` if omitted'),
    outputDestinations: z.array(refName).max(32).default([]).describe('OutputDestination names that receive each finished run'),
  });
}

/** A model alias with its provider (providers shared by several models must be described alike). */
export const ModelSpec = z.strictObject({
  modelId: z.string().min(1).max(256).describe('The provider\'s model id, e.g. `gpt-4o-mini`'),
  provider: ProviderInput,
});

/** A trigger: the API's fields, `agent` by name. `secret` and `signingSecret` are secret references. */
export const TriggerSpec = TriggerPut.omit({ name: true }).extend({ agent: refName.describe('The Agent document\'s name this trigger starts') });

/** Output destinations: the API's variants; the name comes from `metadata.name`. */
export const OutputDestinationSpec = DestinationInput;

/** An MCP server: the API's fields; its name (agents' `mcp:<name>/…`) comes from `metadata.name`. */
export const McpServerSpec = McpServerInput.omit({ name: true });

/** A code detection: the API's fields; the name comes from `metadata.name`. */
export const CodeDetectionSpec = z.strictObject(CodeDetectionInput.omit({ name: true }).shape);

/** A code detection written as one Sigma rule (the rule's own YAML, as SigmaHQ publishes it): mapped as `POST /api/code-detections/import` maps it. */
export const SigmaCodeDetectionSpec = z.strictObject({
  sigma: z.string().min(1).max(200_000).describe('One Sigma rule, as YAML text: its level, status, tags (ATT&CK techniques and tactics) and logsource become the detection\'s fields, and the rule is kept as its `query`'),
  tests: z.array(z.object({
    name: z.string().min(1).max(200),
    event: z.record(z.string(), z.unknown()).optional(),
    events: z.array(z.record(z.string(), z.unknown())).min(1).max(1000).optional(),
    expect: z.enum(['match', 'no_match']),
  })).max(200).optional()
    .describe('Events the rule must and must not match; the plan runs them and fails on a failing test (docs/detections.md#tests-as-code)'),
});

/** Triage routes (one per organization, named `default`): agents and code detections by name. */
const [, logTableCondition, severityCondition, sourceCondition] = RouteCondition.options;
const TriageRouteCondition = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('codeDetection'), codeDetections: z.array(refName).min(1).max(500).describe('CodeDetection names') }),
  logTableCondition,
  severityCondition,
  sourceCondition,
]);
export const TriageRoutesSpec = z.strictObject({
  routes: z
    .array(z.strictObject({ name: RouteInput.shape.name, enabled: RouteInput.shape.enabled, conditions: z.array(TriageRouteCondition).max(20), responseAgent: refName.describe('The Agent that triages matching alerts') }))
    .max(50)
    .default([])
    .describe('In checking order: the first enabled route whose conditions all match wins'),
  defaultResponseAgent: refName.nullable().default(null).describe('The Agent for alerts no route matches; null leaves them unassigned'),
  huntResponseAgent: refName.nullable().default(null).describe('The Agent that triages hunt alerts'),
});
export const TRIAGE_ROUTES_NAME = 'default';

export const Metadata = z.strictObject({ name: refName.describe('The identity of the resource within its kind') });

export const ConfigDocument = z.strictObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.enum(KINDS),
  metadata: Metadata,
  spec: z.record(z.string(), z.unknown()).describe('The resource\'s fields (see the kind\'s schema)'),
});
export type ConfigDocumentT = z.infer<typeof ConfigDocument>;

export const MAX_DOCUMENTS = 1000;

export const PlanBody = z.strictObject({
  documents: z
    .array(z.unknown())
    .max(MAX_DOCUMENTS)
    .describe('The documents, parsed (YAML or JSON), with secret references already resolved to their values by the caller (`rampart apply` does it)'),
  prune: z.boolean().default(false).describe('Also delete resources managed by code that no document names'),
  source: z.string().trim().min(1).max(500).optional().describe('Where the documents come from, e.g. a commit id; recorded as `managedSource` on what changes'),
});
export type PlanBodyT = z.infer<typeof PlanBody>;

const FieldChange = z.object({ from: z.unknown(), to: z.unknown() });
export const Change = z
  .object({
    action: z.enum(['create', 'update', 'delete']),
    kind: z.enum(KINDS),
    name: z.string(),
    diff: z
      .record(z.string(), FieldChange)
      .describe('Field → {from, to}, secret fields apart by their path (`token`, `config.url`). A secret is never shown: a stored one is `"(secret)"`, a new one `"(secret: will change)"`, a removed one null; a URL shows its credential as `REDACTED`. What the apply generates rather than takes from the document is shown too: a webhook trigger\'s `secret` as `"(secret: will be generated)"` when the document gives none (a create, or a trigger replaced because its agent or source changed), and its `webhookUrl` as `"(generated: a new URL, …)"`'),
  })
  .meta({ id: 'ConfigChange' });
export type ChangeT = z.infer<typeof Change>;
export const NotCompared = z
  .object({
    kind: z.enum(KINDS),
    name: z.string(),
    fields: z.array(z.string()).describe('Secret fields set on both sides whose values were not compared'),
    permission: z.string().describe('The permission that would compare them (the kind\'s manage permission)'),
  })
  .meta({ id: 'ConfigNotCompared' });
export type NotComparedT = z.infer<typeof NotCompared>;
export const PlanResult = z
  .object({
    changes: z.array(Change),
    notCompared: z
      .array(NotCompared)
      .describe('Secret values are compared only for callers with the kind\'s manage permission (otherwise a plan would confirm a guessed secret); for others, each resource whose secrets were not compared, so "no changes" is not read as "secrets match"'),
  })
  .meta({ id: 'ConfigPlan' });
