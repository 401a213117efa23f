import type { Schemas } from '../api';

/**
 * The sources an alert can have, as routes and the queue's filter name them: its category
 * (`detection`, `trigger`, `agent`, `user`, `hunt`) and, for a trigger's alert, the trigger type.
 */
const TRIGGER_SOURCES = ['webhook', 'jira', 'jira-automation', 'slack', 'linear', 'bugcrowd', 'hackerone', 'zscaler', 'darktrace', 'cron'] as const satisfies ReadonlyArray<Schemas['AgentTrigger']['source']>;
// The server's trigger sources come through the OpenAPI document: a source added there and not
// here fails the console's type check instead of going missing from the filters.
// `events` triggers create no trigger alerts: their matches are detection alerts (source `detection`).
const everyTriggerSource: [Exclude<Schemas['AgentTrigger']['source'], (typeof TRIGGER_SOURCES)[number] | 'events'>] extends [never] ? true : false = true;
void everyTriggerSource;

export const ALERT_SOURCES: readonly string[] = ['trigger', 'detection', 'agent', 'user', 'hunt', ...TRIGGER_SOURCES];
