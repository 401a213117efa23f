import { sendJson, startServer, type RecordedRequest } from './http-server.js';

/**
 * Slack Web API, the parts delivery uses: `POST /api/chat.postMessage` and `POST /api/auth.test`
 * with `Authorization: Bearer <bot token>`. As Slack does, errors are HTTP 200 with
 * `{ok:false, error}` (`invalid_auth`, `channel_not_found`, `is_archived`, `no_text`,
 * `invalid_blocks`), except rate limiting: HTTP 429 with `Retry-After` and `ratelimited`.
 * Block Kit limits are enforced: ≤ 50 blocks, header text ≤ 150, section text ≤ 3,000.
 */
export interface FakeSlack {
  /** Base to put in config.apiBaseUrl (ends in /api). */
  apiBaseUrl: string;
  requests: RecordedRequest[];
  posted: Array<{ channel: string; text: string; blocks: unknown[]; ts: string }>;
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

export async function startFakeSlack(opts: { token: string }): Promise<FakeSlack> {
  const posted: FakeSlack['posted'] = [];
  const archived = new Set<string>();
  const missing = new Set<string>();
  let limited: number[] = [];
  const limitedChannels = new Map<string, number>();
  let ts = 1_700_000_000;
  const server = await startServer((req, res) => {
    if (req.method !== 'POST') return sendJson(res, 405, { ok: false, error: 'method_not_allowed' });
    if (req.headers.authorization !== `Bearer ${opts.token}`) return sendJson(res, 200, { ok: false, error: req.headers.authorization ? 'invalid_auth' : 'not_authed' });
    if (req.url === '/api/auth.test') return sendJson(res, 200, { ok: true, team: 'Acme', user: 'rampart', bot_id: 'B1' });
    if (req.url !== '/api/chat.postMessage') return sendJson(res, 404, { ok: false, error: 'unknown_method' });
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
  return {
    apiBaseUrl: `${server.url}/api`,
    requests: server.requests,
    posted,
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
