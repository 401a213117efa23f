import type { Database } from '../../platform/db/database.js';
import type { GuardedClient } from '../../platform/outbound/index.js';
import type { SecretBox } from '../../platform/secrets.js';
import { AppError } from '../../platform/http/errors.js';
import { findAgentRow } from '../agents/index.js';
import { findDestinationRow } from '../destinations/index.js';
import { findDirectoryUserByEmail } from '../users/index.js';
import { rolesOfOrganization } from '../roles/index.js';
import { findApprovalById } from './approvals.repo.js';
import type { ApprovalsService } from './approvals.service.js';
import { decidedMessage, slackClickOf, slackSignatureProblem, type SlackClick } from './slack.fns.js';

const SLACK_API = 'https://slack.com/api';

export interface SlackAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * Slack's Approve/Deny clicks (POST /slack/interactions, docs/approvals.md#slack): verified with
 * the Slack signing secret; the Slack user is mapped to a Rampart user by their Slack-verified
 * email (`users.info` with the bot token of the agent's Slack destination); a user who is unknown,
 * deactivated or without `approval.decide` (or outside the agent's approvers) gets an ephemeral
 * refusal; a decision goes through the same service as the API (audited with source `slack`),
 * and the message is replaced, through Slack's `response_url`, by one naming who decided.
 */
export function createSlackInteractions(deps: { db: Database; secrets: SecretBox; http: GuardedClient; approvals: ApprovalsService; signingSecret: string | undefined }) {
  const { db, http } = deps;

  async function respond(click: SlackClick, message: Record<string, unknown>): Promise<void> {
    if (!click.responseUrl) return;
    await http.request(click.responseUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message), timeoutMs: 10_000, retries: 1 }).catch(() => {});
  }

  async function refuse(click: SlackClick, text: string): Promise<SlackAnswer> {
    const body = { response_type: 'ephemeral', replace_original: false, text };
    await respond(click, body);
    return { status: 200, body };
  }

  /** The clicker's email as Slack verified it, asked with the bot token of one of the agent's Slack destinations. */
  async function slackEmail(organizationId: string, destinationIds: readonly string[], slackUserId: string): Promise<string | null> {
    for (const id of destinationIds) {
      const d = await findDestinationRow(db, organizationId, id);
      if (!d || d.type !== 'slack' || !d.tokenCiphertext) continue;
      const base = (typeof d.config.apiBaseUrl === 'string' && d.config.apiBaseUrl ? d.config.apiBaseUrl : SLACK_API).replace(/\/+$/, '');
      const res = await http.request(`${base}/users.info`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${deps.secrets.decrypt(d.tokenCiphertext)}` },
        body: new URLSearchParams({ user: slackUserId }).toString(),
        timeoutMs: 10_000,
        maxResponseBytes: 256 * 1024,
        retries: 1,
      });
      const info = JSON.parse(res.text() || '{}') as { ok?: boolean; user?: { is_email_confirmed?: boolean; deleted?: boolean; profile?: { email?: string } } };
      if (info.ok && info.user && !info.user.deleted && info.user.is_email_confirmed === true && info.user.profile?.email) return info.user.profile.email;
      return null;
    }
    return null;
  }

  return {
    async handle(headers: Record<string, string | string[] | undefined>, rawBody: string): Promise<SlackAnswer> {
      if (!deps.signingSecret) return { status: 401, body: { error: 'Slack interactions are not configured: set RAMPART_SLACK_SIGNING_SECRET' } };
      const header = (n: string) => (Array.isArray(headers[n]) ? headers[n][0] : headers[n]);
      const problem = slackSignatureProblem(deps.signingSecret, { signature: header('x-slack-signature'), timestamp: header('x-slack-request-timestamp') }, rawBody);
      if (problem) return { status: 401, body: { error: problem } };
      let payload: unknown = null;
      try {
        payload = JSON.parse(new URLSearchParams(rawBody).get('payload') ?? 'null');
      } catch {
        return { status: 400, body: { error: 'The payload field is not JSON' } };
      }
      const click = slackClickOf(payload);
      if (!click) return { status: 200, body: {} }; // not one of our buttons: nothing to do
      const approval = await findApprovalById(db, click.approvalId);
      if (!approval) return refuse(click, 'This approval request no longer exists.');
      const agent = await findAgentRow(db, approval.organizationId, approval.agentId);
      const email = agent ? await slackEmail(approval.organizationId, agent.outputDestinationIds, click.slackUserId).catch(() => null) : null;
      const user = email ? await findDirectoryUserByEmail(db, approval.organizationId, email) : undefined;
      if (!user || user.deactivatedAt) return refuse(click, 'Rampart does not know you: your Slack account\'s verified email matches no active Rampart user of this organization.');
      const [role] = await rolesOfOrganization(db, approval.organizationId, [user.roleId]);
      const permissions = new Set(role?.permissions ?? []);
      if (!permissions.has('approval.decide')) return refuse(click, 'You may not decide approval requests: your Rampart role lacks approval.decide.');
      const ctx = { actor: { type: 'user' as const, userId: user.id, organizationId: approval.organizationId, apiKeyId: null, roleId: user.roleId, permissions }, requestId: `slack:${click.slackUserId}` };
      try {
        const decided = await deps.approvals.decide(ctx, approval.id, click.decision, null, 'slack');
        const who = decided.decidedBy?.name ?? user.email;
        const verb = click.decision === 'approved' ? 'Approved' : 'Denied';
        const text = `${verb} by ${who}: ${decided.toolName} (${JSON.stringify(decided.args).slice(0, 500)})`;
        await respond(click, decidedMessage(click, text));
        return { status: 200, body: {} };
      } catch (err) {
        if (err instanceof AppError && (err.statusCode === 409 || err.statusCode === 403)) return refuse(click, err.message);
        throw err;
      }
    },
  };
}
