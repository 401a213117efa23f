import { linearAdapter } from './linear.js';
import { pagerDutyAdapter } from './pagerduty.js';
import { slackAdapter } from './slack.js';
import { teamsAdapter } from './teams.js';
import { tinesAdapter } from './tines.js';
import type { Adapter } from './types.js';
import { webhookAdapter } from './webhook.js';

export const ADAPTERS: Readonly<Record<string, Adapter>> = {
  webhook: webhookAdapter,
  teams: teamsAdapter,
  slack: slackAdapter,
  pagerduty: pagerDutyAdapter,
  linear: linearAdapter,
  tines: tinesAdapter,
};

export type { Adapter, SendContext, SendOutcome, Target } from './types.js';
