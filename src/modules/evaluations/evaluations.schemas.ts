import { z } from 'zod';

/**
 * Evaluations (docs/evaluations.md): datasets of labelled cases, evaluations of an agent over
 * one, their comparison, and the organization's judge model.
 */
export const DISPOSITIONS = ['escalate', 'false_positive', 'benign'] as const;
export type DispositionT = (typeof DISPOSITIONS)[number];
export const Disposition = z.enum(DISPOSITIONS);

const Severity = z.enum(['low', 'medium', 'high', 'critical']);

/** A case's alert: what the sandbox's shadow alert starts as. */
export const CaseAlert = z
  .looseObject({
    title: z.string().trim().min(1).max(500),
    description: z.string().max(20_000).default(''),
    severity: Severity.default('medium'),
    source: z
      .union([z.string().trim().min(1).max(200).transform((name) => ({ category: 'custom', name })), z.object({ category: z.string().min(1).max(100), name: z.string().min(1).max(200) })])
      .default({ category: 'custom', name: 'evaluation' }),
    payload: z.unknown().optional(),
    timeline: z
      .array(z.object({ kind: z.string().max(64).default('note'), body: z.string().max(20_000), at: z.string().max(64).optional() }))
      .max(200)
      .default([])
      .describe('What had happened to the alert before triage (creation, duplicates), as the agent reads it with get_alert'),
  })
  .describe('The alert the agent triages (a shadow of it: nothing real is touched); other fields are kept and shown to the agent');
export type CaseAlertT = z.infer<typeof CaseAlert>;

export const CaseExpected = z.strictObject({
  disposition: Disposition.optional().describe('The right verdict: escalate (a person must act), false_positive or benign'),
  criteria: z.array(z.string().trim().min(1).max(1000)).max(20).optional().describe("What the run should achieve on this case, graded by the judge model"),
});

export const CaseInput = z
  .strictObject({
    alert: CaseAlert.optional(),
    input: z.unknown().optional().describe('A run input instead of an alert (the verdict then comes from the structured output only)'),
    expected: CaseExpected.default({}),
    tags: z.array(z.string().trim().min(1).max(64)).max(20).default([]),
  })
  .refine((c) => (c.alert === undefined) !== (c.input === undefined), { error: 'give either alert or input' });
export type CaseInputT = z.infer<typeof CaseInput>;

export const Case = z.object({
  id: z.uuid(),
  alert: z.record(z.string(), z.unknown()).nullable(),
  input: z.unknown().optional(),
  expected: z.object({ disposition: Disposition.optional(), criteria: z.array(z.string()).optional() }),
  tags: z.array(z.string()),
  sourceAlertId: z.uuid().nullable().describe('The closed alert the case was made from (from-alerts)'),
});
export type CaseDto = z.infer<typeof Case>;

const MAX_CASES = 5000;
export const DatasetCreate = z.strictObject({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(4000).default(''),
  cases: z.array(CaseInput).max(MAX_CASES).default([]),
});
export type DatasetCreateT = z.infer<typeof DatasetCreate>;

export const DatasetSummary = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string(),
  caseCount: z.number().int(),
  labels: z.object({ escalate: z.number().int(), false_positive: z.number().int(), benign: z.number().int(), unlabelled: z.number().int() }),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const Dataset = DatasetSummary.extend({ cases: z.array(Case) }).meta({ id: 'EvaluationDataset' });
export type DatasetDto = z.infer<typeof Dataset>;
export const DatasetList = z.object({ datasets: z.array(DatasetSummary), totalCount: z.number().int() });
export const DatasetIdParams = z.object({ datasetId: z.uuid({ error: 'must be a UUID' }) });

export const ImportResult = z.object({ added: z.number().int(), skipped: z.array(z.object({ ref: z.string(), reason: z.string() })), caseCount: z.number().int() });

export const FromAlertsRequest = z
  .strictObject({
    alertIds: z.array(z.string().min(1).max(64)).min(1).max(500).optional().describe('Alert ids or display ids (RMP-42)'),
    filter: z
      .strictObject({
        severity: z.array(Severity).max(4).optional(),
        source: z.array(z.string().max(100)).max(20).optional(),
        createdAfter: z.iso.datetime({ offset: true }).optional(),
        limit: z.number().int().min(1).max(500).default(100),
      })
      .optional()
      .describe('Closed alerts to take, newest first'),
  })
  .refine((r) => (r.alertIds === undefined) !== (r.filter === undefined), { error: 'give either alertIds or filter' });

// ---------------------------------------------------------------- evaluations

export const EvaluationCreate = z.strictObject({
  datasetId: z.uuid(),
  version: z.number().int().min(1).optional().describe("The agent version to evaluate; default the agent as it is now"),
  concurrency: z.number().int().min(1).max(32).default(4).describe('Cases run at once'),
});

export const Criterion = z.object({ criterion: z.string(), met: z.boolean().nullable(), explanation: z.string() });

export const ToolCallRecord = z.object({
  toolName: z.string(),
  args: z.unknown(),
  effect: z.enum(['shadow', 'recorded', 'called', 'refused', 'approval']).describe('shadow: acted on the shadow alert; recorded: not executed (would have acted on the world); called: read-only, executed; refused: the sandbox (or the agent\'s tool policy `deny`) refused it; approval: would have asked a person for approval (tool policy `approve`), recorded and not executed'),
});

export const CaseResult = z.object({
  caseId: z.uuid(),
  position: z.number().int(),
  status: z.enum(['pending', 'running', 'judging', 'done', 'error']),
  runId: z.uuid().nullable(),
  title: z.string().describe("The case's alert title (or its input, abridged)"),
  tags: z.array(z.string()),
  verdict: Disposition.nullable().describe('What the agent decided (docs/evaluations.md#verdict); null: no verdict'),
  expected: z.object({ disposition: Disposition.optional(), criteria: z.array(z.string()).optional() }),
  correct: z.boolean().nullable().describe('verdict = expected disposition; null when the case has no expected disposition or is not finished'),
  toolCalls: z.array(ToolCallRecord),
  tokens: z.object({ input: z.number().int(), output: z.number().int(), total: z.number().int() }),
  latencyMs: z.number().int().nullable(),
  criteria: z.array(Criterion),
  error: z.string().nullable(),
});
export type CaseResultDto = z.infer<typeof CaseResult>;

const Count = z.number().int();
const MatrixRow = z.object({ escalate: Count, false_positive: Count, benign: Count, none: Count });
export const ConfusionMatrix = z
  .object({ escalate: MatrixRow, false_positive: MatrixRow, benign: MatrixRow })
  .describe('Rows: expected disposition; columns: the verdict (none: the agent reached none)');

export const Summary = z.object({
  cases: Count,
  finished: Count,
  labelled: Count.describe('Finished cases with an expected disposition'),
  correct: Count,
  accuracy: z.number().nullable(),
  confusionMatrix: ConfusionMatrix,
  truePositiveRate: z.number().nullable().describe('Escalations caught: expected escalate and escalated, over expected escalate'),
  falsePositiveRate: z.number().nullable().describe('Non-attacks escalated: expected false_positive or benign and escalated, over those'),
  precision: z.number().nullable(),
  f1: z.number().nullable(),
  wouldHaveClosedTruePositive: Count.describe('Expected escalate, closed as false_positive or benign: must be 0'),
  criteria: z.object({ graded: Count, met: Count }),
  tokens: z.object({ input: Count, output: Count, total: Count }),
  latencyMs: z.object({ p50: z.number().nullable(), p95: z.number().nullable() }),
});
export type SummaryDto = z.infer<typeof Summary>;

export const EvaluationSummary = z.object({
  id: z.uuid(),
  agentId: z.uuid(),
  datasetId: z.uuid().nullable().describe('Null once the dataset was deleted (the evaluation keeps its cases)'),
  datasetName: z.string(),
  agentVersion: z.number().int().nullable(),
  status: z.enum(['running', 'done', 'cancelled']),
  concurrency: z.number().int(),
  progress: z.object({ total: Count, finished: Count, running: Count, pending: Count }),
  summary: Summary,
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type EvaluationSummaryDto = z.infer<typeof EvaluationSummary>;
export const Evaluation = EvaluationSummary.extend({ cases: z.array(CaseResult) }).meta({ id: 'Evaluation' });
export type EvaluationDto = z.infer<typeof Evaluation>;
export const EvaluationList = z.object({ evaluations: z.array(EvaluationSummary), totalCount: Count });
export const EvaluationIdParams = z.object({ evaluationId: z.uuid({ error: 'must be a UUID' }) });

export const CompareQuery = z.object({ a: z.uuid({ error: 'must be a UUID' }), b: z.uuid({ error: 'must be a UUID' }) });
const Side = z.object({ runId: z.uuid().nullable(), verdict: Disposition.nullable(), correct: z.boolean().nullable() });
export const Comparison = z.object({
  a: EvaluationSummary,
  b: EvaluationSummary,
  changed: z
    .array(z.object({ caseId: z.uuid(), title: z.string(), expected: Disposition.nullable(), a: Side, b: Side, change: z.enum(['fixed', 'broke', 'changed']) }))
    .describe('Cases whose verdict differs: fixed (b correct, a not), broke (a correct, b not), changed (neither or no label)'),
});

export const Settings = z.object({
  judgeModelAlias: z.string().nullable().describe("The model alias the judge uses (acceptance criteria, cases' criteria); null: no grading"),
});
export const SettingsUpdate = z.strictObject({
  judgeModelAlias: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'must be a model alias (lowercase letters, digits, . _ -)')
    .nullable(),
});
