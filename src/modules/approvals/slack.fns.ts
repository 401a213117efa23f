import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Slack interactivity (docs/approvals.md#slack): the request signature Slack sends with every
 * interaction (`X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<timestamp>:<raw body>">` with the
 * app's signing secret, `X-Slack-Request-Timestamp`), and what a button click carries.
 */
export const SLACK_MAX_SKEW_SECONDS = 5 * 60;

export function slackSignatureProblem(secret: string, headers: { signature?: string | undefined; timestamp?: string | undefined }, rawBody: string, nowSeconds = Math.floor(Date.now() / 1000)): string | null {
  if (!headers.signature || !headers.timestamp) return 'Missing X-Slack-Signature or X-Slack-Request-Timestamp';
  if (!/^\d{1,12}$/.test(headers.timestamp)) return 'Invalid X-Slack-Request-Timestamp';
  if (Math.abs(nowSeconds - Number(headers.timestamp)) > SLACK_MAX_SKEW_SECONDS) return 'Stale request: X-Slack-Request-Timestamp is more than 5 minutes away';
  const expected = Buffer.from(`v0=${createHmac('sha256', secret).update(`v0:${headers.timestamp}:${rawBody}`).digest('hex')}`);
  const given = Buffer.from(headers.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'Invalid X-Slack-Signature';
  return null;
}

export const APPROVE_ACTION = 'rampart_approval_approve';
export const DENY_ACTION = 'rampart_approval_deny';

export interface SlackClick {
  approvalId: string;
  decision: 'approved' | 'denied';
  slackUserId: string;
  teamId: string | null;
  responseUrl: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The click in a `block_actions` payload (the form field `payload`, JSON), or null when it is not one of ours. */
export function slackClickOf(payload: unknown): SlackClick | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as { type?: unknown; user?: { id?: unknown }; team?: { id?: unknown }; response_url?: unknown; actions?: Array<{ action_id?: unknown; value?: unknown }> };
  if (p.type !== 'block_actions' || !Array.isArray(p.actions)) return null;
  const action = p.actions.find((a) => a.action_id === APPROVE_ACTION || a.action_id === DENY_ACTION);
  if (!action || typeof action.value !== 'string' || !UUID.test(action.value) || typeof p.user?.id !== 'string') return null;
  return {
    approvalId: action.value,
    decision: action.action_id === APPROVE_ACTION ? 'approved' : 'denied',
    slackUserId: p.user.id,
    teamId: typeof p.team?.id === 'string' ? p.team.id : null,
    responseUrl: typeof p.response_url === 'string' ? p.response_url : null,
  };
}
