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
  /** The clicked message's blocks as Slack sent them back (`message.blocks`), to keep in the decided message. */
  messageBlocks: unknown[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The click in a `block_actions` payload (the form field `payload`, JSON), or null when it is not one of ours. */
export function slackClickOf(payload: unknown): SlackClick | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as { type?: unknown; user?: { id?: unknown }; team?: { id?: unknown }; response_url?: unknown; message?: { blocks?: unknown }; actions?: Array<{ action_id?: unknown; value?: unknown }> };
  if (p.type !== 'block_actions' || !Array.isArray(p.actions)) return null;
  const action = p.actions.find((a) => a.action_id === APPROVE_ACTION || a.action_id === DENY_ACTION);
  if (!action || typeof action.value !== 'string' || !UUID.test(action.value) || typeof p.user?.id !== 'string') return null;
  return {
    approvalId: action.value,
    decision: action.action_id === APPROVE_ACTION ? 'approved' : 'denied',
    slackUserId: p.user.id,
    teamId: typeof p.team?.id === 'string' ? p.team.id : null,
    responseUrl: typeof p.response_url === 'string' ? p.response_url : null,
    messageBlocks: Array.isArray(p.message?.blocks) ? p.message.blocks : [],
  };
}

/**
 * The message that replaces the request once decided: the original blocks (the request: tool,
 * arguments, reason, link) without its Approve/Deny buttons, then a line naming the decision and
 * who made it. Without the original blocks (an old client), the line alone.
 */
export function decidedMessage(click: SlackClick, text: string): Record<string, unknown> {
  const kept = click.messageBlocks.filter((b) => {
    const block = b as { type?: unknown; block_id?: unknown; elements?: Array<{ action_id?: unknown }> } | null;
    if (!block || typeof block !== 'object') return false;
    return !(block.type === 'actions' && (block.elements ?? []).some((e) => e.action_id === APPROVE_ACTION || e.action_id === DENY_ACTION));
  });
  const line = { type: 'section', text: { type: 'plain_text', text: text.slice(0, 3000) } };
  return { replace_original: true, text, blocks: [...kept.slice(0, 49), line] };
}
