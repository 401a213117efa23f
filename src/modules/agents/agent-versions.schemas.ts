import { z } from 'zod';
import { schemaSet } from '../../platform/http/lazy-schemas.js';
import { agentSchemas, AgentIdParams } from './agents.schemas.js';

/** Agent versions (issue 30 item 3): an immutable record of the agent after each change. */
export const VersionParams = AgentIdParams.extend({
  version: z.coerce
    .number({ error: 'must be a version number' })
    .int('must be a version number')
    .min(1, 'must be a version number (1 or more)')
    .max(2_147_483_647)
    .describe('The version number: 1 is the agent as created, each change adds one'),
});

export const DiffQuery = z.strictObject({
  against: z.coerce
    .number({ error: 'must be a version number' })
    .int('must be a version number')
    .min(0, 'must be a version number')
    .max(2_147_483_647)
    .optional()
    .describe('The version to compare with (default: the one before, `version - 1`); 0 compares with nothing, every field shown as added'),
});

/** The responses' schemas, built at first use (platform/http/lazy-schemas.ts): ~10 % of Zod's share of the API's import. */
export const agentVersionSchemas = schemaSet(() => {
  const TriggerSettings = z
    .object({
      id: z.uuid(),
      name: z.string(),
      source: z.string(),
      enabled: z.boolean(),
      cronSchedule: z.string().nullable(),
      input: z.unknown(),
      createAlert: z.boolean().nullable(),
      routeAlerts: z.boolean(),
      alertMapping: z.record(z.string(), z.string()).nullable(),
      inputMapping: z.record(z.string(), z.string()).nullable(),
      deliveryIdPointer: z.string().nullable(),
      additionalFields: z.record(z.string(), z.unknown()),
    })
    .describe("A trigger's settings as they were (its secrets are never recorded)");

  const AgentSnapshot = agentSchemas().Agent.pick({
    id: true,
    name: true,
    description: true,
    agentType: true,
    systemPrompt: true,
    modelAlias: true,
    toolNames: true,
    inputs: true,
    structuredOutputSchema: true,
    outputDestinationIds: true,
    maxSteps: true,
    maxDurationMs: true,
    acceptanceCriteria: true,
    notifyCriteriaFailed: true,
    toolPolicies: true,
    approvalSettings: true,
  })
    .extend({ triggers: z.array(TriggerSettings).describe("The agent's saved triggers at this version, oldest first (drafts are not recorded)") })
    .meta({ id: 'AgentSnapshot' });

  const VersionSource = z
    .enum(['api', 'console', 'code', 'restore', 'migration'])
    .describe('Where the change came from: `api` (an API key), `console` (a console session), `code` (`rampart apply`), `restore` (POST …/versions/{n}/restore), `migration` (version 1 of an agent that existed before versions did)');

  const AgentVersionSummary = z
    .object({
      agentId: z.uuid(),
      version: z.number().int(),
      source: VersionSource,
      sourceRef: z.string().nullable().describe('For `code`: what the files came from (e.g. a commit id), when given'),
      restoredFrom: z.number().int().nullable().describe('For `restore`: the version restored'),
      createdAt: z.string(),
      createdBy: z
        .object({ type: z.enum(['user', 'system']), userId: z.uuid().nullable(), apiKeyId: z.uuid().nullable() })
        .describe('Who made the change: a user (through an API key when `apiKeyId` is set), or the system'),
    })
    .meta({ id: 'AgentVersionSummary' });

  const AgentVersion = AgentVersionSummary.extend({ snapshot: AgentSnapshot }).meta({ id: 'AgentVersion' });

  const AgentVersionList = z.object({ versions: z.array(AgentVersionSummary), totalCount: z.number().int() });

  const DiffLine = z.object({ op: z.enum(['added', 'removed', 'unchanged']), text: z.string() });

  const AgentVersionDiff = z
    .object({
      agentId: z.uuid(),
      version: z.number().int(),
      against: z.number().int().describe('The version compared with (0: nothing)'),
      changes: z.array(
        z.object({
          field: z.string().describe('A snapshot field (`systemPrompt`, `toolNames`, `triggers`, …)'),
          before: z.unknown().describe('Its value at `against` (null when absent)'),
          after: z.unknown().describe('Its value at `version`'),
          lines: z
            .array(DiffLine)
            .optional()
            .describe('Text fields (`systemPrompt`, `description`) line by line, structured ones as indented JSON; absent for scalars'),
        }),
      ).describe('The fields that differ, in snapshot order; empty when the two versions are equal'),
    })
    .meta({ id: 'AgentVersionDiff' });

  return { AgentSnapshot, VersionSource, AgentVersionSummary, AgentVersion, AgentVersionList, AgentVersionDiff };
});
type Built = ReturnType<typeof agentVersionSchemas>;
export type AgentVersionSummaryDto = z.infer<Built['AgentVersionSummary']>;
export type AgentVersionDto = z.infer<Built['AgentVersion']>;
