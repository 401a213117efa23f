import { z } from 'zod';
import { managedFields } from '../../platform/managed.js';
import { AlertSeverity, Alert } from './alerts.schemas.js';

export const CodeDetectionInput = z.object({
  name: z.string().trim().min(1).max(255),
  ruleId: z.string().trim().min(1).max(255).nullable().optional().describe('The rule id in your detection-as-code repository or SIEM'),
  description: z.string().max(10_000).optional(),
  severity: AlertSeverity.default('medium'),
  logTable: z.object({ source: z.string().trim().min(1).max(200), stream: z.string().trim().min(1).max(200) }).nullable().optional()
    .describe('The log table the rule queries; it appears in `logTableOptions` of the triage routes'),
  query: z.string().max(100_000).nullable().optional().describe('The rule text (a query or Sigma YAML), kept for reference'),
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
