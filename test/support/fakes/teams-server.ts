import { sendJson, startServer, type RecordedRequest } from './http-server.js';

/**
 * A Teams Workflows ("When a Teams webhook request is received") URL: POST JSON
 * `{type:"message", attachments:[{contentType:"application/vnd.microsoft.card.adaptive", content:
 * <AdaptiveCard>}]}`, answered 202 Accepted. Payloads over 28 KB are refused (413), as Teams does.
 * The URL carries a `sig` query parameter; a wrong one is 401.
 */
export interface FakeTeams {
  url: string;
  requests: RecordedRequest[];
  cards: Array<Record<string, any>>;
  failNext(n: number, status: number): void;
  close(): Promise<void>;
}

export async function startFakeTeams(): Promise<FakeTeams> {
  const cards: FakeTeams['cards'] = [];
  const failures: number[] = [];
  const path = '/workflows/abc/triggers/manual/paths/invoke?api-version=1&sig=s3cr3t';
  const server = await startServer((req, res) => {
    if (req.method !== 'POST' || !req.url.startsWith('/workflows/abc/triggers/manual/paths/invoke')) return sendJson(res, 404, { error: { code: 'NotFound' } });
    if (!req.url.endsWith('sig=s3cr3t')) return sendJson(res, 401, { error: { code: 'DirectApiAuthorizationRequired', message: 'The request must be authenticated' } });
    const f = failures.shift();
    if (f !== undefined) return sendJson(res, f, { error: { code: 'Failure' } });
    if (Buffer.byteLength(req.body) > 28 * 1024) return sendJson(res, 413, { error: { code: 'MessageTooLarge' } });
    const body = JSON.parse(req.body) as { type?: string; attachments?: Array<{ contentType?: string; content?: Record<string, any> }> };
    const att = body.attachments?.[0];
    if (body.type !== 'message' || att?.contentType !== 'application/vnd.microsoft.card.adaptive' || att.content?.type !== 'AdaptiveCard' || !att.content.version) {
      return sendJson(res, 400, { error: { code: 'InvalidRequestContent', message: 'The input body for trigger is not valid' } });
    }
    cards.push(att.content);
    res.writeHead(202).end();
  });
  return {
    url: `${server.url}${path}`,
    requests: server.requests,
    cards,
    failNext(n, status) {
      for (let i = 0; i < n; i++) failures.push(status);
    },
    close: server.close,
  };
}
