import type { GuardedClient } from '../../../platform/outbound/index.js';
import type { Message } from '../message.fns.js';

/** A destination as an adapter needs it: its config and its token in clear (never logged). */
export interface Target {
  id: string;
  organizationId: string;
  name: string;
  type: string;
  config: Record<string, unknown>;
  token: string | null;
  /** Webhooks: the secrets each delivery is signed with (the current one first; the previous one during a rotation's overlap). */
  signingSecrets: string[];
}

export interface SendContext {
  http: GuardedClient;
  /** Per request. */
  timeoutMs: number;
  /** What earlier attempts of this delivery already did (Slack: channels posted to). */
  progress: Record<string, unknown>;
  /** Signs webhook deliveries (tests pin it). */
  now?: () => Date;
}

/** One HTTP request, rendered. */
export interface Rendered {
  url: string;
  headers: Record<string, string>;
  body: string;
}

interface Base {
  /** The last response's status (null when none came back). */
  status: number | null;
  /** A short excerpt of the last response body, credentials removed. */
  excerpt: string | null;
  progress?: Record<string, unknown>;
  /** Slack channels the remote side reported archived or gone. */
  blockChannels?: string[];
}

export type SendOutcome =
  | (Base & { kind: 'succeeded'; message?: string })
  | (Base & { kind: 'transient'; error: string; retryAfter?: string })
  | (Base & { kind: 'permanent'; error: string })
  | (Base & { kind: 'skipped'; error: string });

export interface Adapter {
  send(target: Target, message: Message, ctx: SendContext): Promise<SendOutcome>;
}
