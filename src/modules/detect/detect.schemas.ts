import { z } from 'zod';
import { EVENT_LIMITS } from './events-body.fns.js';

const part = z.string().trim().min(1).max(200);

export const EventsQuery = z.object({
  product: part.optional().describe('The batch\'s logsource product (`windows`, `linux`, `aws`…), as Sigma rules name it'),
  category: part.optional().describe('The batch\'s logsource category (`process_creation`, `network_connection`…)'),
  service: part.optional().describe('The batch\'s logsource service (`security`, `sysmon`, `cloudtrail`…)'),
});

export const EventsBody = z.unknown().describe(
  `Events as JSON objects: a JSON array, newline-delimited JSON (NDJSON / JSON Lines), or one object; \`Content-Encoding: gzip\` accepted. ` +
    `Each event may carry its own \`logsource\` object ({product, category, service}), which wins over the batch's (query parameters). ` +
    `At most ${EVENT_LIMITS.maxEvents} events per request and ${EVENT_LIMITS.maxEventBytes} bytes per event; a gzip body inflates to at most ${EVENT_LIMITS.maxInflatedBytes} bytes.`,
);

export const EventsAccepted = z.object({
  accepted: z.number().int().describe('Events queued for matching (all of the body\'s, or none: a body with one bad event is refused whole)'),
});

export const ActivityQuery = z.object({
  days: z.coerce.number().int().min(1).max(365).default(30).describe('Days of matches per day, ending today (UTC)'),
  samples: z.coerce.number().int().min(0).max(50).default(10).describe('Latest matched events to include'),
});

export const DetectionActivity = z.object({
  codeDetectionId: z.string(),
  lastMatchedAt: z.string().nullable().describe('The latest event the detection matched (null: never)'),
  matchesInWindow: z.number().int(),
  matchesPerDay: z.array(z.object({ day: z.string().describe('YYYY-MM-DD (UTC)'), matches: z.number().int() })).describe('Days with at least one match, oldest first'),
  samples: z
    .array(z.object({ matchedAt: z.string(), ruleTitle: z.string(), alertId: z.string().nullable(), event: z.record(z.string(), z.unknown()) }))
    .describe('The latest matched events, newest first: the rolling evidence sample (50 kept per detection)'),
});

export const NoisyFieldsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(10).describe('Field/value pairs to answer, most frequent first'),
});

export const NoisyFields = z.object({
  codeDetectionId: z.string(),
  sampledEvents: z.number().int().describe('Matched events counted: the evidence sample (the latest 50 matches)'),
  fields: z
    .array(z.object({
      field: z.string().describe('A field the rule names in a selection that matched (`CommandLine|contains` → `CommandLine`)'),
      value: z.string().describe('The value the matched events had (cut at 200 characters)'),
      matches: z.number().int().describe('Sampled events with this field/value in a matching selection'),
      selections: z.array(z.string()).describe('The selections it was counted in'),
    }))
    .describe('Most frequent first: the pair a filter would silence most. Keyword selections name no field and are left out'),
});
