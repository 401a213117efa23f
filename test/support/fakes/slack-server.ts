import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { sendJson, startServer, type RecordedRequest } from './http-server.js';

/**
 * Slack Web API, the parts Rampart uses: `POST /api/chat.postMessage`, `chat.update` (JSON) and
 * `auth.test`; `users.info` (`user`) and `users.lookupByEmail` (`email`), form-encoded POST or GET
 * query as Slack accepts them, answering Slack's user object (`profile.email`, `is_email_confirmed`,
 * `deleted`); all with `Authorization: Bearer <bot token>`. As Slack does, errors are HTTP 200 with
 * `{ok:false, error}` (`invalid_auth`, `channel_not_found`, `is_archived`, `no_text`,
 * `invalid_blocks`, `user_not_found`, `users_not_found`, `message_not_found`), except rate
 * limiting: HTTP 429 with `Retry-After` and `ratelimited`. Block Kit limits are enforced: ≤ 50
 * blocks, header text ≤ 150, section text ≤ 3,000.
 *
 * Also the interaction `response_url`s Slack hands an app (`responseUrl()` mints one): POST JSON
 * only (`text` and/or `blocks`, `response_type` `ephemeral` | `in_channel`, `replace_original`,
 * `delete_original`), anything else 400 as Slack answers it; each URL takes at most 5 posts
 * (Slack's documented limit), then 404 `used_url`.
 */
export interface FakeSlackUser {
  id: string;
  email: string;
  realName?: string;
  /** Whether Slack has confirmed the email (`is_email_confirmed`); default true. */
  emailConfirmed?: boolean;
  deleted?: boolean;
}

export interface FakeSlack {
  /** Base to put in config.apiBaseUrl (ends in /api). */
  apiBaseUrl: string;
  requests: RecordedRequest[];
  posted: Array<{ channel: string; text: string; blocks: unknown[]; ts: string }>;
  /** `chat.update` calls that succeeded (the posted entry is updated too). */
  updated: Array<{ channel: string; ts: string; text: string; blocks: unknown[] }>;
  /** Posts received at response URLs, in order, with the URL they went to. */
  responses: Array<{ url: string; body: Record<string, unknown> }>;
  /** A fresh response_url, as Slack puts in an interaction payload. */
  responseUrl(): string;
  /** Workspace members `users.info` / `users.lookupByEmail` know. */
  users: Map<string, FakeSlackUser>;
  archived: Set<string>;
  missing: Set<string>;
  rateLimitNext(n: number, retryAfterSeconds: number): void;
  /** The next post to `channel` is rate limited. */
  rateLimitChannelOnce(channel: string, retryAfterSeconds: number): void;
  close(): Promise<void>;
}

function blocksError(blocks: unknown): string | null {
  if (blocks === undefined) return null;
  if (!Array.isArray(blocks) || blocks.length > 50) return 'invalid_blocks';
  for (const b of blocks as Array<{ type?: string; text?: { type?: string; text?: string }; fields?: Array<{ text?: string }> }>) {
    if (b.type === 'header' && (b.text?.type !== 'plain_text' || (b.text.text ?? '').length > 150)) return 'invalid_blocks';
    if (b.type === 'section') {
      if (b.text && (b.text.text ?? '').length > 3000) return 'invalid_blocks';
      if (b.fields && (b.fields.length > 10 || b.fields.some((f) => (f.text ?? '').length > 2000))) return 'invalid_blocks';
    }
  }
  return null;
}

const USER_METHODS = new Set(['/api/users.info', '/api/users.lookupByEmail']);

/** Slack's user object, the fields users.info documents that Rampart reads or a reader expects. */
function userObject(u: FakeSlackUser) {
  const realName = u.realName ?? u.email.split('@')[0]!;
  return {
    id: u.id,
    team_id: 'T0ACME',
    name: realName.toLowerCase().replace(/\s+/g, '.'),
    deleted: u.deleted ?? false,
    real_name: realName,
    tz: 'Europe/Berlin',
    is_admin: false,
    is_bot: false,
    is_app_user: false,
    is_email_confirmed: u.emailConfirmed ?? true,
    updated: 1_700_000_000,
    profile: { real_name: realName, display_name: realName, email: u.email, image_24: 'https://a.slack-edge.com/avatar-24.png' },
  };
}

function sendText(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

export async function startFakeSlack(opts: { token: string; users?: FakeSlackUser[] }): Promise<FakeSlack> {
  const posted: FakeSlack['posted'] = [];
  const archived = new Set<string>();
  const missing = new Set<string>();
  let limited: number[] = [];
  const limitedChannels = new Map<string, number>();
  const updated: FakeSlack['updated'] = [];
  const responses: FakeSlack['responses'] = [];
  const responseUses = new Map<string, number>();
  const users = new Map<string, FakeSlackUser>((opts.users ?? []).map((u) => [u.id, u]));
  let ts = 1_700_000_000;
  let hooks = 0;
  const server = await startServer((req, res) => {
    const url = new URL(req.url, 'http://slack.local');
    if (url.pathname.startsWith('/actions/')) return answerResponseUrl(req, res);
    if (req.method !== 'POST' && !(req.method === 'GET' && USER_METHODS.has(url.pathname))) return sendJson(res, 405, { ok: false, error: 'method_not_allowed' });
    if (req.headers.authorization !== `Bearer ${opts.token}`) return sendJson(res, 200, { ok: false, error: req.headers.authorization ? 'invalid_auth' : 'not_authed' });
    if (url.pathname === '/api/auth.test') return sendJson(res, 200, { ok: true, team: 'Acme', user: 'rampart', bot_id: 'B1' });
    if (USER_METHODS.has(url.pathname)) {
      const args = formArgs(req, url);
      if (!args) return sendJson(res, 200, { ok: false, error: 'invalid_form_data' });
      if (url.pathname === '/api/users.info') {
        const u = args.get('user') ? users.get(args.get('user')!) : undefined;
        return sendJson(res, 200, u ? { ok: true, user: userObject(u) } : { ok: false, error: args.get('user') ? 'user_not_found' : 'invalid_arguments' });
      }
      const email = args.get('email')?.toLowerCase();
      const u = email ? [...users.values()].find((x) => x.email.toLowerCase() === email) : undefined;
      return sendJson(res, 200, u ? { ok: true, user: userObject(u) } : { ok: false, error: email ? 'users_not_found' : 'invalid_arguments' });
    }
    if (url.pathname === '/api/chat.update') return chatUpdate(req, res);
    if (url.pathname !== '/api/chat.postMessage') return sendJson(res, 404, { ok: false, error: 'unknown_method' });
    if (!String(req.headers['content-type']).startsWith('application/json')) return sendJson(res, 200, { ok: false, error: 'invalid_form_data' });
    const retryAfter = limited.shift();
    if (retryAfter !== undefined) return sendJson(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(retryAfter) });
    const body = JSON.parse(req.body) as { channel?: string; text?: string; blocks?: unknown[] };
    if (!body.channel) return sendJson(res, 200, { ok: false, error: 'channel_not_found' });
    const channelLimit = limitedChannels.get(body.channel);
    if (channelLimit !== undefined) {
      limitedChannels.delete(body.channel);
      return sendJson(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(channelLimit) });
    }
    if (missing.has(body.channel)) return sendJson(res, 200, { ok: false, error: 'channel_not_found' });
    if (archived.has(body.channel)) return sendJson(res, 200, { ok: false, error: 'is_archived' });
    if (!body.text && !body.blocks?.length) return sendJson(res, 200, { ok: false, error: 'no_text' });
    const bad = blocksError(body.blocks);
    if (bad) return sendJson(res, 200, { ok: false, error: bad });
    const stamp = `${ts++}.000100`;
    posted.push({ channel: body.channel, text: body.text ?? '', blocks: body.blocks ?? [], ts: stamp });
    sendJson(res, 200, { ok: true, channel: body.channel, ts: stamp, message: { text: body.text } });
  });

  /** users.* take form-encoded POST bodies or a GET query (Slack: "application/x-www-form-urlencoded"). */
  function formArgs(req: RecordedRequest, url: URL): URLSearchParams | null {
    if (req.method === 'GET') return url.searchParams;
    const type = String(req.headers['content-type'] ?? '');
    if (type.startsWith('application/x-www-form-urlencoded')) return new URLSearchParams(req.body);
    if (type.startsWith('application/json')) {
      try {
        return new URLSearchParams(Object.entries(JSON.parse(req.body) as Record<string, string>));
      } catch {
        return null;
      }
    }
    return null;
  }

  function chatUpdate(req: RecordedRequest, res: http.ServerResponse) {
    if (!String(req.headers['content-type']).startsWith('application/json')) return sendJson(res, 200, { ok: false, error: 'invalid_form_data' });
    const body = JSON.parse(req.body) as { channel?: string; ts?: string; text?: string; blocks?: unknown[] };
    if (!body.channel) return sendJson(res, 200, { ok: false, error: 'channel_not_found' });
    const message = posted.find((p) => p.channel === body.channel && p.ts === body.ts);
    if (!message) return sendJson(res, 200, { ok: false, error: 'message_not_found' });
    if (!body.text && !body.blocks?.length) return sendJson(res, 200, { ok: false, error: 'no_text' });
    const bad = blocksError(body.blocks);
    if (bad) return sendJson(res, 200, { ok: false, error: bad });
    message.text = body.text ?? '';
    message.blocks = body.blocks ?? [];
    updated.push({ channel: body.channel, ts: message.ts, text: message.text, blocks: message.blocks });
    sendJson(res, 200, { ok: true, channel: body.channel, ts: message.ts, text: message.text });
  }

  function answerResponseUrl(req: RecordedRequest, res: http.ServerResponse) {
    const path = new URL(req.url, 'http://slack.local').pathname;
    if (!responseUses.has(path)) return sendText(res, 404, 'no_such_url');
    if (req.method !== 'POST') return sendText(res, 405, 'method_not_allowed');
    if (!String(req.headers['content-type']).startsWith('application/json')) return sendText(res, 400, 'invalid_payload');
    const uses = responseUses.get(path)!;
    if (uses >= 5) return sendText(res, 404, 'used_url');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(req.body) as Record<string, unknown>;
    } catch {
      return sendText(res, 400, 'invalid_payload');
    }
    if (typeof body !== 'object' || body === null || (!body.text && !Array.isArray(body.blocks) && body.delete_original !== true)) return sendText(res, 400, 'no_text');
    if (body.response_type !== undefined && body.response_type !== 'ephemeral' && body.response_type !== 'in_channel') return sendText(res, 400, 'invalid_payload');
    if (blocksError(body.blocks)) return sendText(res, 400, 'invalid_blocks');
    responseUses.set(path, uses + 1);
    responses.push({ url: `${server.url}${path}`, body });
    sendText(res, 200, 'ok');
  }

  return {
    apiBaseUrl: `${server.url}/api`,
    requests: server.requests,
    posted,
    updated,
    responses,
    users,
    responseUrl() {
      const path = `/actions/T0ACME/${++hooks}/${randomBytes(12).toString('hex')}`;
      responseUses.set(path, 0);
      return `${server.url}${path}`;
    },
    archived,
    missing,
    rateLimitNext(n, s) {
      limited = [...limited, ...Array<number>(n).fill(s)];
    },
    rateLimitChannelOnce(channel, s) {
      limitedChannels.set(channel, s);
    },
    close: server.close,
  };
}
