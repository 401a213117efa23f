import { sendJson, startServer, type RecordedRequest } from './http-server.js';

/**
 * Linear's GraphQL API, `POST /graphql` with the `issueCreate` mutation. A personal API key is
 * sent as `Authorization: <key>` with no scheme (Linear's docs); "Bearer <key>" is how OAuth
 * tokens are sent and is refused for an API key. Errors come as `{errors:[{message,
 * extensions:{code}}]}` (HTTP 400): AUTHENTICATION_ERROR, INVALID_INPUT, RATELIMITED.
 */
export interface FakeLinear {
  apiBaseUrl: string;
  requests: RecordedRequest[];
  issues: Array<Record<string, any>>;
  rateLimitNext(n: number): void;
  close(): Promise<void>;
}

const gqlError = (message: string, code: string) => ({ errors: [{ message, extensions: { code, type: code.toLowerCase().replace(/_/g, ' ') } }] });

export async function startFakeLinear(opts: { apiKey: string; teams: Record<string, string> }): Promise<FakeLinear> {
  const issues: FakeLinear['issues'] = [];
  let limited = 0;
  const server = await startServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/graphql') return sendJson(res, 404, { error: 'not found' });
    if (req.headers.authorization !== opts.apiKey) return sendJson(res, 400, gqlError('Authentication required, not authenticated', 'AUTHENTICATION_ERROR'));
    if (limited > 0) {
      limited--;
      return sendJson(res, 400, gqlError('Rate limit exceeded', 'RATELIMITED'), { 'x-ratelimit-requests-remaining': '0' });
    }
    const body = JSON.parse(req.body) as { query?: string; variables?: { input?: Record<string, any> } };
    if (!/mutation\s+\w*\s*\(\$input:\s*IssueCreateInput!\)\s*\{\s*issueCreate\(input:\s*\$input\)/.test(body.query ?? '')) return sendJson(res, 400, gqlError('Unknown operation', 'GRAPHQL_VALIDATION_FAILED'));
    const input = body.variables?.input ?? {};
    const key = opts.teams[input.teamId as string];
    if (!key) return sendJson(res, 400, gqlError('Argument Validation Error', 'INVALID_INPUT'));
    if (typeof input.title !== 'string' || input.title.length === 0) return sendJson(res, 400, gqlError('title must not be empty', 'INVALID_INPUT'));
    const identifier = `${key}-${issues.length + 1}`;
    issues.push({ ...input, identifier });
    sendJson(res, 200, { data: { issueCreate: { success: true, issue: { id: `issue-${issues.length}`, identifier, url: `https://linear.app/acme/issue/${identifier}` } } } });
  });
  return {
    apiBaseUrl: server.url,
    requests: server.requests,
    issues,
    rateLimitNext(n) {
      limited += n;
    },
    close: server.close,
  };
}
