import type { KnownBlock, MrkdwnElement } from '@slack/types';
import { TRUNCATION_MARKER, truncate, type Message } from '../message.fns.js';
import { apiBase, excerptOf, isOutcome, post } from './http.js';
import type { Adapter, Rendered, SendOutcome, Target } from './types.js';

/**
 * Slack: `chat.postMessage` with the bot token to each of `channelIds`, a Block Kit message
 * (header, section, fields, links) with a plain-text `text` fallback for notifications.
 * Slack's limits: header text 150 characters, section text 3,000, a field 2,000 (10 fields),
 * `text` 40,000 (4,000 advised). Slack answers HTTP 200 with `{ok:false, error}` for most
 * errors; `is_archived` / `channel_not_found` block the channel (config.blockedChannels) until
 * a user updates the destination; `ratelimited` (HTTP 429) honours Retry-After.
 */
export const SLACK_API = 'https://slack.com/api';
const BLOCK_ON = new Set(['is_archived', 'channel_not_found']);
const TRANSIENT = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

/**
 * Slack mrkdwn's control characters are `&`, `<` and `>` (`<!channel>`, `<url|text>`,
 * `<@U123>`): escaped as Slack documents, every sender text shows as typed.
 */
export const escapeMrkdwn = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A message body (an agent's Markdown, an alert's description) → Slack mrkdwn: escaped first,
 * then bold and headings converted. A Markdown link shows its text and its address but is not
 * clickable (`text (url)`, in a `verbatim` text object so Slack does not link the address
 * either): only Rampart's own links (the message's `links`) are.
 */
export function toMrkdwn(md: string): string {
  return escapeMrkdwn(md)
    .replace(/\*\*(.+?)\*\*/g, '*$1*')
    .replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '$1 ($2)')
    .replace(/^#{1,6}\s+(.*)$/gm, '*$1*');
}

/**
 * A Markdown body as the plain text of a notification (the `text` fallback, shown by phones and
 * screen readers): no `**`, heading marks, code fences or table rules; a link as "text (url)".
 */
export function toPlainText(md: string): string {
  return md
    .replace(/^\s*```[^\n]*$/gm, '')
    .replace(/^\s*\|?(\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*$/gm, '')
    .replace(/^\s*\|(.*)\|\s*$/gm, (_l, cells: string) => cells.split('|').map((c) => c.trim()).join(' · '))
    .replace(/\*\*(.+?)\*\*/g, '$1')
    .replace(/`([^`\n]+)`/g, '$1')
    .replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '$1 ($2)')
    .replace(/^#{1,6}\s+/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * `truncate`, never through a link: Rampart's `<url|text>` links and the addresses of sender
 * links (`text (https://…)`) are kept whole or left out, so no half address reaches Slack.
 */
export function truncateKeepingLinks(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - TRUNCATION_MARKER.length;
  for (const m of text.matchAll(/<[^>]*>|\(?https?:\/\/[^\s)>]*\)?/g)) {
    if (m.index >= end) break;
    if (m.index + m[0].length > end) {
      end = m.index;
      break;
    }
  }
  return text.slice(0, end).trimEnd() + TRUNCATION_MARKER;
}

/** A sender text in a mrkdwn object: escaped, and `verbatim` so Slack links no address and parses no mention in it. */
const mrkdwn = (text: string): MrkdwnElement => ({ type: 'mrkdwn', text, verbatim: true });

/** One of Rampart's own links (console pages under RAMPART_BASE_URL): the only live links of a message. */
const ownLink = (l: { text: string; url: string }) => `<${l.url.replace(/[|<>]/g, encodeURIComponent)}|${escapeMrkdwn(l.text).replace(/\|/g, '¦')}>`;

export function renderSlack(target: Target, m: Message, channel: string): Rendered {
  // `plain_text` shows its text as is (no mention, no link), so the title is not escaped there.
  const blocks: KnownBlock[] = [{ type: 'header', text: { type: 'plain_text', text: truncate(m.title, 150), emoji: true } }];
  // Slack refuses an empty section: a message whose fields say it all (structured output) has none.
  if (m.body) blocks.push({ type: 'section', text: mrkdwn(truncateKeepingLinks(toMrkdwn(m.body), 3000)) });
  // Slack takes 10 fields per section: more (a long structured output) go in further sections, up to 40 fields.
  for (let i = 0; i < Math.min(m.fields.length, 40); i += 10) {
    blocks.push({ type: 'section', fields: m.fields.slice(i, i + 10).map((f) => mrkdwn(truncate(`*${escapeMrkdwn(f.name)}*\n${escapeMrkdwn(f.value)}`, 2000))) });
  }
  // An approval request (docs/approvals.md#slack): Approve and Deny, answered at POST /slack/interactions.
  const approvalId = m.eventType === 'approval.requested' && typeof m.data.approvalId === 'string' ? m.data.approvalId : null;
  if (approvalId) {
    blocks.push({
      type: 'actions',
      block_id: `rampart_approval_${approvalId}`.slice(0, 255),
      elements: [
        { type: 'button', action_id: 'rampart_approval_approve', text: { type: 'plain_text', text: 'Approve' }, style: 'primary', value: approvalId },
        { type: 'button', action_id: 'rampart_approval_deny', text: { type: 'plain_text', text: 'Deny' }, style: 'danger', value: approvalId },
      ],
    });
  }
  if (m.links.length) blocks.push({ type: 'context', elements: [mrkdwn(truncateKeepingLinks(m.links.map(ownLink).join(' · '), 3000))] });
  // The notification text is mrkdwn too (no verbatim there): plain text without Markdown marks, escaped, links shown as text.
  const text = truncateKeepingLinks(escapeMrkdwn(m.body ? `${m.title}\n${toPlainText(m.body)}` : m.title), 4000);
  return {
    url: `${apiBase(target.config, SLACK_API)}/chat.postMessage`,
    headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${target.token ?? ''}` },
    // parse "none" and link_names false: Slack neither links channel names nor turns `@here` into a mention.
    body: JSON.stringify({ channel, text, blocks, unfurl_links: false, unfurl_media: false, parse: 'none', link_names: false }),
  };
}

export const slackAdapter: Adapter = {
  async send(target, message, ctx): Promise<SendOutcome> {
    if (!target.token) return { kind: 'permanent', status: null, excerpt: null, error: 'The Slack destination has no bot token' };
    const cfg = target.config as { channelIds: string[]; blockedChannels?: Record<string, unknown> };
    const posted = { ...((ctx.progress.slackPosted as Record<string, string> | undefined) ?? {}) };
    const blocked = new Set(Object.keys(cfg.blockedChannels ?? {}));
    const newlyBlocked: string[] = [];
    let last: { status: number | null; excerpt: string | null } = { status: null, excerpt: null };
    for (const channel of cfg.channelIds) {
      if (posted[channel] || blocked.has(channel)) continue;
      const res = await post(renderSlack(target, message, channel), target, ctx);
      if (isOutcome(res)) return { ...res, progress: { slackPosted: posted }, blockChannels: newlyBlocked };
      const excerpt = excerptOf(res.text, target);
      last = { status: res.status, excerpt };
      let body: { ok?: boolean; error?: string; ts?: string } = {};
      try {
        body = JSON.parse(res.text) as typeof body;
      } catch {
        /* a non-JSON answer (a proxy's error page): judged by its status below */
      }
      if (res.status === 200 && body.ok === true) {
        posted[channel] = body.ts ?? 'ok';
        continue;
      }
      const code = body.error ?? `HTTP ${res.status}`;
      if (BLOCK_ON.has(code)) {
        newlyBlocked.push(channel);
        continue;
      }
      const error = `Slack refused the message to ${channel}: ${code}`;
      const progress = { slackPosted: posted };
      if (res.status === 429 || TRANSIENT.has(code) || res.status >= 500 || res.status === 408) {
        return { kind: 'transient', status: res.status, excerpt, error, progress, blockChannels: newlyBlocked, ...(res.headers['retry-after'] ? { retryAfter: res.headers['retry-after'] } : {}) };
      }
      return { kind: 'permanent', status: res.status, excerpt, error, progress, blockChannels: newlyBlocked };
    }
    const progress = { slackPosted: posted };
    const skippedNote = newlyBlocked.length ? `; blocked (archived or not found): ${newlyBlocked.join(', ')}` : '';
    if (Object.keys(posted).length === 0) {
      return { kind: 'skipped', ...last, error: `Every channel of the destination is blocked${skippedNote}`, progress, blockChannels: newlyBlocked };
    }
    return { kind: 'succeeded', ...last, message: `Posted to ${Object.keys(posted).length} channel(s)${skippedNote}`, progress, blockChannels: newlyBlocked };
  },
};
