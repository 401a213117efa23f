import { z } from 'zod';
import { managedFields } from '../../platform/managed.js';
import { AlertSeverity, Alert } from './alerts.schemas.js';
import { TARGETS } from './sigma/sigma-convert.fns.js';
import { pipelineNames } from './sigma/sigma-pipelines.fns.js';

/** The OpenAPI extension on `?pipeline=` naming each target's pipelines. */
export const PIPELINES_BY_TARGET = 'x-pipelines-by-target';

export const CODE_DETECTION_STATUSES = ['experimental', 'test', 'stable', 'deprecated'] as const;
export const CodeDetectionStatus = z.enum(CODE_DETECTION_STATUSES).describe('Maturity, as Sigma defines it; `deprecated` detections do not count as coverage, `experimental` ones count apart');
const TechniqueId = z.string().trim().toUpperCase().regex(/^T\d{4}(\.\d{3})?$/, 'must be an ATT&CK technique id (T1059 or T1059.001)');

export const CodeDetectionInput = z.object({
  name: z.string().trim().min(1).max(255),
  ruleId: z.string().trim().min(1).max(255).nullable().optional().describe('The rule id in your detection-as-code repository or SIEM'),
  description: z.string().max(10_000).optional(),
  severity: AlertSeverity.default('medium'),
  logTable: z.object({ source: z.string().trim().min(1).max(200), stream: z.string().trim().min(1).max(200) }).nullable().optional()
    .describe('The log table the rule queries; it appears in `logTableOptions` of the triage routes'),
  query: z.string().max(100_000).nullable().optional().describe('The rule text (a query or Sigma YAML), kept for reference'),
  attackTechniques: z.array(TechniqueId).max(200).default([])
    .describe('ATT&CK techniques the rule detects (T1059, T1059.001), checked against the ATT&CK catalog; a sub-technique counts for its parent in coverage'),
  attackTactics: z.array(z.string().trim().toLowerCase().min(1).max(100)).max(20).default([]).describe('ATT&CK tactic shortnames (`execution`), checked against the catalog'),
  status: CodeDetectionStatus.default('stable'),
  tags: z.array(z.string().trim().min(1).max(200)).max(100).default([]).describe('Free tags (a Sigma rule keeps its own: `attack.t1059.001`, `detection.threat-hunting`)'),
});

export const CodeDetection = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    name: z.string(),
    ruleId: z.string().nullable(),
    description: z.string(),
    severity: AlertSeverity,
    logTable: z.object({ source: z.string(), stream: z.string() }).nullable(),
    query: z.string().nullable(),
    ...managedFields,
    attackTechniques: z.array(z.string()),
    attackTactics: z.array(z.string()),
    status: CodeDetectionStatus,
    tags: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'CodeDetection' });
export type CodeDetectionDto = z.infer<typeof CodeDetection>;

export const CodeDetectionList = z.object({ codeDetections: z.array(CodeDetection), totalCount: z.number().int() });

export const HitBody = z.object({
  payload: z.unknown().describe('The matched event(s) as your pipeline reports them; kept on the alert'),
  dedupeKey: z.string().min(1).max(500).optional().describe('Hits with the same key while the alert is not closed count as duplicates'),
  severity: AlertSeverity.optional().describe("Defaults to the detection's severity"),
  title: z.string().trim().min(1).max(500).optional().describe("Defaults to the detection's name"),
});
export const HitResult = z.object({ alert: Alert, created: z.boolean() });

export const ImportBody = z.object({
  format: z.literal('sigma').describe('Only Sigma for now'),
  content: z.string().min(1).max(5_000_000)
    .describe('One Sigma rule, several as a multi-document YAML (`---` between rules), or a JSON array of rules'),
});
const ImportedRef = z.object({ index: z.number().int(), id: z.string(), ruleId: z.string().nullable(), name: z.string() });
export const ImportResult = z.object({
  created: z.array(ImportedRef),
  updated: z.array(ImportedRef).describe('Rules whose id (or, without an id, whose title) matched a detection: replaced'),
  errors: z.array(z.object({ index: z.number().int(), ruleId: z.string().nullable(), title: z.string().nullable(), message: z.string() }))
    .describe('Rules not imported, each with why (index: its position in the content, from 0)'),
  warnings: z.array(z.object({ index: z.number().int(), ruleId: z.string().nullable(), title: z.string().nullable(), message: z.string() }))
    .describe('Rules imported with something left out (an ATT&CK technique the catalog does not know)'),
});

export const QueryParams = z.object({
  target: z.enum(TARGETS).describe('The query language'),
  pipeline: z.string().trim().min(1).max(100).optional().meta({
    description: `A pySigma processing pipeline by its pySigma name: the product's field names and its table, index or data model (docs/detections.md#pipelines). ${TARGETS.map((t) => `${t}: ${pipelineNames(t).join(', ') || 'none'}`).join('; ')}. Without one the query keeps the rule's own field names. A name the target does not have answers 422 with \`pipelines\`, the valid ones; a rule the pipeline cannot place (no table or data set for its logsource, a field the data set lacks) answers 422 with \`construct: pipeline <name>\``,
    // Machine-readable for clients (the console's pipeline picker is generated from it, npm run gen:api):
    // the valid names depend on the target, which one enum cannot say.
    [PIPELINES_BY_TARGET]: Object.fromEntries(TARGETS.map((t) => [t, pipelineNames(t)])),
  }),
  format: z.enum(['default', 'data_model']).optional()
    .describe('The output format: `data_model` (with pipeline splunk_cim_data_model) writes the accelerated `| tstats … from datamodel=…` search; another pipeline answers 422'),
});
export const QueryResult = z.object({
  target: z.string(),
  pipeline: z.string().nullable(),
  queries: z.array(z.string()).describe('One query per detection rule of the Sigma text (the rule as pySigma\'s backend for `target` writes it). A correlation rule is one query with its base rules (splunk and esql only: their aggregation over `timespan` buckets by `group-by`); its base rules have no query of their own unless it says `generate: true`. Lucene and Kusto answer 422 `construct: correlation`'),
});

export const TestBody = z.object({
  events: z.array(z.record(z.string(), z.unknown())).min(1).max(1000).describe('JSON events, evaluated against the detection\'s Sigma rule'),
});
export const TestResult = z.object({
  results: z.array(z.object({
    index: z.number().int().describe('The event\'s position in `events`, from 0'),
    matched: z.boolean(),
    matchedSelections: z.array(z.string()).describe('The rule\'s selections that matched the event (whether or not the condition did)'),
  })),
});

export const SavedTestsResult = z.object({
  tests: z.array(z.object({
    index: z.number().int().describe('The test\'s position in the rule\'s `tests`, from 0'),
    name: z.string(),
    expect: z.enum(['match', 'no_match']),
    passed: z.boolean(),
    failingIndex: z.number().int().nullable().describe('The event that decided a failure (its position in the test\'s events); null when the test passed'),
    events: z.array(z.object({
      index: z.number().int(),
      matched: z.boolean().describe('Whether a detection rule of the detection matched the event (for a correlation test, a base rule)'),
      matchedSelections: z.array(z.string()),
    })),
  })).describe('The tests the detection\'s Sigma text carries (`tests:`, written by config apply from `spec.tests` or by hand), run now against the rule as stored'),
  errors: z.array(z.string()).describe('Malformed test entries, each with why (they are not run)'),
});
