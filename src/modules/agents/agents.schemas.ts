import { z } from 'zod';
import { schemaSet } from '../../platform/http/lazy-schemas.js';
import { managedFields } from '../../platform/managed.js';
import { MCP_TOOL_RE, TOOL_POLICIES } from '../tools/index.js';
import { schemaCompileError } from './output-schema.fns.js';

/**
 * Agents: a system prompt, a model alias and tools, run on demand or from triggers.
 * `inputs` declares the named inputs a caller may pass (documentation for UIs and for the
 * prompt: the run input is given to the model as JSON). `structuredOutputSchema` is a JSON
 * Schema (type object) the final answer must satisfy; when set, the run result carries
 * `structuredOutputResult` once the output validated.
 */

/**
 * The schemas an agent's fields are built from, at first use (platform/http/lazy-schemas.ts):
 * the API's write schema and config documents build them at a route's first request, not at import.
 */
const fieldSchemas = schemaSet(() => {
  const AgentInputSpec = z.strictObject({
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be an identifier (letters, digits, _)'),
    description: z.string().max(2000).optional(),
    type: z.enum(['string', 'number', 'boolean', 'object', 'array']).default('string'),
    required: z.boolean().default(false),
  });

  const JsonSchemaObject = z
    .record(z.string(), z.unknown())
    .refine((s) => s.type === 'object', { error: 'must be a JSON Schema with "type": "object"' })
    .superRefine((s, ctx) => {
      const error = s.type === 'object' ? schemaCompileError(s) : null;
      if (error) ctx.addIssue({ code: 'custom', message: `is not a valid JSON Schema: ${error}` });
    })
    .describe('JSON Schema (type object) the final answer must satisfy');

  /** Who may decide this agent's approval requests, and for how long they wait. */
  const ApprovalSettings = z
    .strictObject({
      expiresAfterSeconds: z.number().int().min(60).max(7 * 24 * 3600).default(3600).describe('A request no one decides within this time is denied with reason `expired` (default 1 hour)'),
      approverRoleIds: z.array(z.uuid()).max(32).default([]).describe('Only users holding one of these roles may decide (with approverUserIds: either); empty with approverUserIds empty: anyone holding `approval.decide`'),
      approverUserIds: z.array(z.uuid()).max(64).default([]).describe('Only these users may decide (with approverRoleIds: either)'),
      requireSecondPerson: z.boolean().default(false).describe('Refuse a decision by the person who last changed the agent'),
    })
    .describe('Approval requests of this agent\'s runs (docs/approvals.md)');

  return { AgentInputSpec, JsonSchemaObject, ApprovalSettings };
});
export type AgentInputSpecT = z.infer<ReturnType<typeof fieldSchemas>['AgentInputSpec']>;
export type ApprovalSettingsT = z.infer<ReturnType<typeof fieldSchemas>['ApprovalSettings']>;

/** A tool name: one of the service's built-in tools (every module's manifest `tools`, handed in by the composition root) or an MCP tool. */
const toolName = (builtin: readonly string[]) =>
  z.string().refine((n) => builtin.includes(n) || MCP_TOOL_RE.test(n), {
    error: `must be a built-in tool (${builtin.join(', ')}) or mcp:<server>/<tool>`,
  });

/** What a call of each tool needs (docs/approvals.md#tool-policies); a tool not named takes its own default. */
const toolPolicies = (builtin: readonly string[]) =>
  z
    .record(toolName(builtin), z.enum(TOOL_POLICIES))
    .refine((r) => Object.keys(r).length <= 64, { error: 'at most 64 tool policies' })
    .default({})
    .describe(
      'Per tool the agent lists (a built-in name, `mcp:<server>/<tool>` or `mcp:<server>/*`): `allow` runs each call, `approve` waits for a person (docs/approvals.md), `deny` refuses it. A tool not named takes its default: built-in read tools `allow`, a built-in declaring otherwise (block_indicator) its own, MCP tools `allow` only when their server declares them `readOnlyHint`, `http_request` `approve` for any method but GET and HEAD',
    );

export const DEFAULT_APPROVAL_SETTINGS: ApprovalSettingsT = { expiresAfterSeconds: 3600, approverRoleIds: [], approverUserIds: [], requireSecondPerson: false };

/** The fields of an agent as written (config documents reuse them, with names for ids). */
export const agentFields = (builtinTools: readonly string[]) => {
  const { AgentInputSpec, JsonSchemaObject, ApprovalSettings } = fieldSchemas();
  return {
  name: z.string().trim().min(1).max(255),
  description: z.string().max(4000).default(''),
  systemPrompt: z.string().min(1).max(100_000),
  modelAlias: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'must be a model alias (lowercase letters, digits, . _ -)')
    .default('default')
    .describe('Alias of a configured model (see /api/model-aliases); `default` if omitted'),
  toolNames: z.array(toolName(builtinTools)).max(64).default([]),
  inputs: z.array(AgentInputSpec).max(64).default([]),
  structuredOutputSchema: JsonSchemaObject.nullable().default(null),
  agentType: z.enum(['response', 'detection']).default('response'),
  outputDestinationIds: z.array(z.uuid()).max(32).default([]).describe('Destinations that receive each finished run'),
  maxSteps: z.number().int().min(1).max(100).default(10).describe('Model calls per run (each tool round-trip is one step)'),
  maxDurationMs: z.number().int().min(1000).max(3_600_000).default(300_000).describe('Wall-time limit of a run'),
  maxConcurrentRuns: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .nullable()
    .default(null)
    .describe('At most this many runs of the agent hold a worker slot at once; its other runs wait. Default null: no limit of its own (runs still share the worker slots fairly with other agents; docs/operations.md#agent-run-scheduling)'),
  acceptanceCriteria: z.array(z.string().trim().min(1).max(1000)).max(20).default([]).describe("What every run should achieve; graded by the organization's judge model after each run (docs/evaluations.md)"),
  notifyCriteriaFailed: z.boolean().default(false).describe('Send `run.criteria_failed` to the output destinations when a run fails a criterion'),
  toolPolicies: toolPolicies(builtinTools),
  approvalSettings: ApprovalSettings.default(DEFAULT_APPROVAL_SETTINGS),
  };
};

/** The body of POST and of PUT (which replaces the agent; omitted optional fields take their defaults), over the service's built-in tool names. */
export const agentWriteSchema = (builtinTools: readonly string[]) => z.strictObject(agentFields(builtinTools));
export type AgentCreateT = z.infer<ReturnType<typeof agentWriteSchema>>;

/** The responses' schemas, built at first use (platform/http/lazy-schemas.ts). */
export const agentSchemas = schemaSet(() => {
  const Agent = z.object({
    id: z.uuid(),
    organizationId: z.uuid(),
    name: z.string(),
    description: z.string(),
    systemPrompt: z.string(),
    modelAlias: z.string(),
    toolNames: z.array(z.string()),
    inputs: z.array(z.object({ name: z.string(), description: z.string().optional(), type: z.string(), required: z.boolean() })),
    structuredOutputSchema: z.record(z.string(), z.unknown()).nullable(),
    agentType: z.enum(['response', 'detection']),
    outputDestinationIds: z.array(z.uuid()),
    maxSteps: z.number().int(),
    maxDurationMs: z.number().int(),
    maxConcurrentRuns: z.number().int().nullable(),
    version: z.number().int().describe('The current version: every change to the agent (or to its triggers\' settings) appends one (GET /api/agents/{agentId}/versions)'),
    ...managedFields,
    driftedFromCodeAt: z
      .string()
      .nullable()
      .describe('For an agent managed by code: when a forced hand edit or restore (`force=true`) made it differ from its file; null when it is what the last apply wrote (the next apply puts the file back and clears it)'),
    acceptanceCriteria: z.array(z.string()),
    notifyCriteriaFailed: z.boolean(),
    toolPolicies: z.record(z.string(), z.enum(TOOL_POLICIES)),
    approvalSettings: z.object({ expiresAfterSeconds: z.number().int(), approverRoleIds: z.array(z.uuid()), approverUserIds: z.array(z.uuid()), requireSecondPerson: z.boolean() }),
    warnings: z
      .array(z.string())
      .describe('What to know about this configuration, e.g. a `structuredOutputSchema` that cannot be sent in OpenAI strict mode (it is then sent non-strict); empty when nothing'),
    createdAt: z.string(),
    updatedAt: z.string(),
  });

  const AgentList = z.object({ agents: z.array(Agent), totalCount: z.number().int() });

  return { Agent, AgentList };
});
export type AgentDto = z.infer<ReturnType<typeof agentSchemas>['Agent']>;

export const AgentIdParams = z.object({ agentId: z.uuid({ error: 'must be a UUID' }) });
