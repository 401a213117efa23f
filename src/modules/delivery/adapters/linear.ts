import { markdownOf, truncate, type Message, type Severity } from '../message.fns.js';
import { apiBase, excerptOf, isOutcome, JSON_HEADERS, post } from './http.js';
import type { Adapter, Rendered, SendOutcome, Target } from './types.js';

/**
 * Linear: the GraphQL `issueCreate` mutation at {apiBase}/graphql, with `teamId`, `labelIds`
 * and `stateId` (config.workflowStateId) from the config and a markdown description. A
 * personal API key goes in `Authorization` as is, without "Bearer", as Linear documents.
 * GraphQL errors come back with HTTP 200 or 400 and an `errors` array; `RATELIMITED` (or
 * HTTP 429) is retried, authentication and validation errors are permanent.
 */
export const LINEAR_API = 'https://api.linear.app';
const PRIORITY: Record<Severity, number> = { critical: 1, high: 2, medium: 3, low: 4, info: 4 };
export const ISSUE_CREATE = 'mutation IssueCreate($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { id identifier url } } }';

export function renderLinear(target: Target, m: Message): Rendered {
  const cfg = target.config as { teamId: string; labelIds?: string[]; workflowStateId?: string };
  const input = {
    teamId: cfg.teamId,
    title: truncate(m.title, 255),
    description: truncate(markdownOf(m), 100_000),
    ...(cfg.labelIds?.length ? { labelIds: cfg.labelIds } : {}),
    ...(cfg.workflowStateId ? { stateId: cfg.workflowStateId } : {}),
    ...(m.severity ? { priority: PRIORITY[m.severity] } : {}),
  };
  return {
    url: `${apiBase(target.config, LINEAR_API)}/graphql`,
    headers: { ...JSON_HEADERS, authorization: target.token ?? '' },
    body: JSON.stringify({ query: ISSUE_CREATE, variables: { input } }),
  };
}

interface GraphQLAnswer {
  data?: { issueCreate?: { success?: boolean; issue?: { identifier?: string; url?: string } } };
  errors?: Array<{ message?: string; extensions?: { code?: string; type?: string } }>;
}

export const linearAdapter: Adapter = {
  async send(target, message, ctx): Promise<SendOutcome> {
    if (!target.token) return { kind: 'permanent', status: null, excerpt: null, error: 'The Linear destination has no API key' };
    const res = await post(renderLinear(target, message), target, ctx);
    if (isOutcome(res)) return res;
    const excerpt = excerptOf(res.text, target);
    let body: GraphQLAnswer = {};
    try {
      body = JSON.parse(res.text) as GraphQLAnswer;
    } catch {
      /* judged by status */
    }
    const retryAfter = res.headers['retry-after'] ? { retryAfter: res.headers['retry-after'] } : {};
    const codes = (body.errors ?? []).map((e) => e.extensions?.code ?? '');
    if (res.status === 429 || codes.includes('RATELIMITED')) return { kind: 'transient', status: res.status, excerpt, error: 'Linear rate limit reached', ...retryAfter };
    const issue = body.data?.issueCreate;
    if (res.status === 200 && issue?.success && !body.errors?.length) {
      return { kind: 'succeeded', status: res.status, excerpt, message: `Created ${issue.issue?.identifier ?? 'an issue'}${issue.issue?.url ? ` ${issue.issue.url}` : ''}` };
    }
    const what = body.errors?.map((e) => e.message).filter(Boolean).join('; ') || `HTTP ${res.status}`;
    const error = `Linear refused the issue: ${truncate(what, 300)}`;
    if (res.status >= 500 || res.status === 408) return { kind: 'transient', status: res.status, excerpt, error, ...retryAfter };
    return { kind: 'permanent', status: res.status, excerpt, error };
  },
};
