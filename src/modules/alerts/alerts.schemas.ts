import { z } from 'zod';
import { ALERT_SEVERITIES, ALERT_STATUSES } from './alerts.fns.js';
import { httpUrl } from '../../platform/http/url-schemas.js';

const uuidOrNull = z.string().nullable();
const text = (max: number) => z.string().trim().min(1).max(max);

export const AlertSeverity = z.enum(ALERT_SEVERITIES);
export const AlertStatus = z.enum(ALERT_STATUSES);

export const RoutingExplanation = z
  .object({
    outcome: z.enum(['route', 'default', 'unassigned', 'trigger', 'assigned', 'hunt', 'not_routed']),
    routeId: z.string().nullable(),
    routeName: z.string().nullable(),
    reason: z.string(),
  })
  .describe('Why the alert went to its agent (or to none): the route that matched, the default, its trigger, …');

/** The API spec's "Alert", every field; `routing` and (on GET one) `payload` are documented extensions. */
export const Alert = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    displayId: z.string().describe('Per-organization readable id, `RMP-<n>`; accepted wherever an alert id is'),
    organizationName: z.string(),
    title: z.string(),
    description: z.string(),
    severity: AlertSeverity,
    status: AlertStatus,
    duplicateCount: z.number().int(),
    source: z.object({ category: z.string(), name: z.string(), triggerType: z.string().nullable() }),
    detection: z
      .object({ id: z.string(), agentId: uuidOrNull, ruleId: z.string().nullable(), codeDetectionId: z.string(), name: z.string(), kind: z.string(), origin: z.string() })
      .nullable(),
    createdBy: z.string().describe('`trigger`, `detection`, `agent`, `user` or `hunt`'),
    originAgentId: uuidOrNull,
    originTriggerId: uuidOrNull,
    originRunId: uuidOrNull,
    originDetectionHitId: uuidOrNull,
    codeDetectionId: uuidOrNull,
    originCodeDetectionHitId: uuidOrNull,
    assignedAgentId: uuidOrNull,
    triageRunId: uuidOrNull,
    duplicateOfAlertId: uuidOrNull,
    resolvedByUserId: uuidOrNull,
    externalProvider: z.string().nullable(),
    externalRef: z.string().nullable(),
    externalUrl: z.string().nullable(),
    dedupeKey: z.string().nullable(),
    originAgentName: z.string().nullable(),
    assignedAgentName: z.string().nullable(),
    resolvedByAgentName: z.string().nullable(),
    resolvedReason: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    firstTriagedAt: z.string().nullable(),
    resolvedAt: z.string().nullable(),
    derivedDisposition: z.enum(['true_positive', 'false_positive', 'benign']).nullable(),
    triggerSource: z.string().nullable(),
    resolvedByType: z.enum(['human', 'agent']).nullable(),
    huntQualifiedBy: z.string().nullable(),
    routing: RoutingExplanation.nullable(),
  })
  .meta({ id: 'Alert' });
export type AlertDto = z.infer<typeof Alert>;

export const TimelineEntry = z
  .object({
    id: z.string(),
    alertId: z.string(),
    kind: z.string().describe('`created`, `duplicate`, `routed`, `not_routed`, `assigned`, `triage_started`, `triage_finished`, `status_changed`, `escalated`, `closed`, `reopened`, `severity_changed`, `updated`, `comment`, `approval_requested`, `approval_decided` (docs/approvals.md)'),
    actorType: z.enum(['human', 'agent', 'system']),
    actorUserId: uuidOrNull,
    actorAgentId: uuidOrNull,
    actorName: z.string().nullable().optional().describe('Extension, on reads of the timeline: the person\'s name (else email) or the agent\'s name; null when deleted'),
    runId: uuidOrNull,
    body: z.string(),
    data: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
  })
  .meta({ id: 'AlertTimelineEntry' });
export type TimelineEntryDto = z.infer<typeof TimelineEntry>;

export const AlertIdParams = z.object({ alertId: z.string().min(1).max(64).describe('The alert uuid or its display id (`RMP-42`)') });

const csv = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .transform((s, ctx) => {
      const parts = s.split(',').map((p) => p.trim()).filter(Boolean);
      const bad = parts.filter((p) => !(values as readonly string[]).includes(p));
      if (bad.length) ctx.addIssue({ code: 'custom', message: `Unknown value(s) ${bad.join(', ')}; allowed: ${values.join(', ')}` });
      return parts as T[number][];
    })
    .optional();

export const AlertListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(100).describe('Page size, 1..200 (default 100)'),
  offset: z.coerce.number().int().min(0).default(0),
  status: csv(ALERT_STATUSES).describe('Comma-separated statuses'),
  severity: csv(ALERT_SEVERITIES).describe('Comma-separated severities'),
  source: z.string().max(500).transform((v) => v.split(',').map((p) => p.trim()).filter(Boolean)).optional().describe('Comma-separated: a trigger type (`jira`, `webhook`, …) or a source category (`detection`, `trigger`, `agent`, `user`, `hunt`)'),
  assignedAgentId: z.uuid().optional(),
  search: z.string().max(200).optional().describe('Substring of title, description, source name or external ref (case-insensitive)'),
  createdAfter: z.iso.datetime({ offset: true }).optional(),
});

export const AlertList = z.object({ alerts: z.array(Alert), totalCount: z.number().int() });
export const AlertWithTimeline = z.object({
  alert: Alert.extend({
    payload: z.unknown().describe('The original signal, parsed: the trigger body or the detection hit (stored as JSON: key order and spacing are not kept)'),
    payloadRaw: z
      .string()
      .nullable()
      .describe(
        "Extension: a trigger alert's body exactly as the sender sent it (UTF-8 text: key order, spacing and duplicate keys kept; a form body undecoded), at most the body limit (RAMPART_BODY_LIMIT_BYTES). " +
          'null for alerts not made from a webhook delivery, alerts made before it was kept, and bodies that are not UTF-8 text. The evidence to export: what the sender sent',
      ),
  }),
  timeline: z.array(TimelineEntry).describe('The first 50 entries, oldest first; the rest at …/timeline'),
});
export const AlertOnly = z.object({ alert: Alert });
export const TimelinePage = z.object({ entries: z.array(TimelineEntry), totalCount: z.number().int() });

export const CreateAlertBody = z.object({
  title: text(500),
  description: z.string().max(20_000).optional(),
  severity: AlertSeverity.default('medium'),
  dedupeKey: z.string().min(1).max(500).optional(),
  externalProvider: z.string().max(100).optional(),
  externalRef: z.string().max(500).optional(),
  externalUrl: httpUrl(2000).optional().describe('http(s) only: the console links to it'),
  payload: z.unknown().optional(),
});
export const CreateAlertResult = z.object({ alert: Alert, created: z.boolean().describe('false when the signal was deduplicated into an alert that is not closed') });

export const PatchAlertBody = z
  .object({ title: text(500).optional(), description: z.string().max(20_000).optional() })
  .refine((b) => b.title !== undefined || b.description !== undefined, { message: 'Give title and/or description' });
export const StatusBody = z.object({ status: AlertStatus, reason: z.string().max(5000).optional() });
export const StatusResult = z.object({ alert: Alert, entry: TimelineEntry });
export const SeverityBody = z.object({ severity: AlertSeverity, reason: z.string().max(5000).optional() });
export const CommentBody = z.object({ bodyMarkdown: z.string().trim().min(1).max(20_000) });
export const CommentResult = z.object({ entry: TimelineEntry });
export const AssignBody = z.object({ agentId: z.uuid() });
export const AssignResult = z.object({ alert: Alert, runId: z.string() });
export const BulkStatusBody = z.object({
  alertIds: z.array(z.string().min(1).max(64)).min(1).max(200),
  status: AlertStatus,
  reason: z.string().max(5000).optional(),
});
export const BulkStatusResult = z.object({
  updated: z.array(z.string()),
  failed: z.array(z.object({ alertId: z.string(), error: z.string() })),
});
export const ForRunParams = z.object({ runId: z.uuid() });
export const ForRunResult = z.object({ alert: Alert.nullable() });
