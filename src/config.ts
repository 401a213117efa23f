import path from 'node:path';
import { z } from 'zod';
import ipaddr from 'ipaddr.js';

/**
 * Environment → validated, frozen configuration. There are no secret defaults: the secret key
 * comes from RAMPART_SECRET_KEY or, with the embedded database, from a file generated once in
 * the data dir (see platform/secrets.ts).
 */
const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  RAMPART_DATA_DIR: z.string().min(1).default('./.rampart'),
  RAMPART_BASE_URL: z.url().optional(),
  RAMPART_SECRET_KEY: z
    .string()
    .regex(/^[A-Za-z0-9+/=_-]{43,}$/, 'must be at least 32 bytes, base64 or base64url encoded')
    .optional(),
  RAMPART_BOOTSTRAP_API_KEY: z
    .string()
    .regex(/^rmp_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/, 'must look like a Rampart API key (rmp_<8 chars>_<43 chars>)')
    .optional(),
  RAMPART_ALLOW_PRIVATE_NETWORKS: booleanFlag.default(false),
  /** The Slack app's signing secret: Slack's Approve/Deny clicks (POST /slack/interactions) are verified with it (docs/approvals.md#slack). */
  RAMPART_SLACK_SIGNING_SECRET: z.string().min(16).max(256).optional(),
  RAMPART_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(6000),
  RAMPART_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  RAMPART_INTAKE_GROUP_WAIT_MS: z.coerce.number().int().min(0).max(100).default(10),
  RAMPART_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
  RAMPART_DELIVERY_CONCURRENCY: z.coerce.number().int().min(0).max(100).default(2),
  RAMPART_OSV_MAX_INFLATED_BYTES: z.coerce.number().int().min(1024 * 1024).default(8 * 1024 * 1024 * 1024),
  RAMPART_OSV_SHARD_RECORDS: z.coerce.number().int().min(0).max(10_000_000).default(10_000),
  RAMPART_DEAD_WORKER_AFTER_SECONDS: z.coerce.number().int().min(3).max(3600).default(60),
  RAMPART_INVALIDATION_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(300).default(5),
  RAMPART_EMBEDDED_PG_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  RAMPART_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  RAMPART_TRUST_PROXY: z
    .string()
    .transform((v, ctx) => parseTrustProxy(v, ctx))
    .optional(),
  RAMPART_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(30),
  RAMPART_SESSION_MAX_HOURS: z.coerce.number().int().min(1).max(30 * 24).default(12),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  baseUrl: string;
  /**
   * RAMPART_BASE_URL was set (else baseUrl is derived from HOST and PORT of this process; several
   * API processes must share one public address).
   */
  baseUrlConfigured: boolean;
  secretKey: string | undefined;
  bootstrapApiKey: string | undefined;
  allowPrivateNetworks: boolean;
  /** RAMPART_SLACK_SIGNING_SECRET; without it Slack interactions are refused. */
  slackSigningSecret?: string | undefined;
  rateLimitPerMinute: number;
  bodyLimitBytes: number;
  /** Webhook intake's group commit: how long a plain delivery waits for others to share its statement (triggers' intake-group.ts). */
  intakeGroupWaitMs: number;
  workerConcurrency: number;
  /** Worker slots kept for deliveries on top of workerConcurrency (0: none; deliveries then share the slots). */
  deliveryConcurrency: number;
  /** Inflated bytes one OSV sync reads of a zip (docs/hunt.md). */
  osvMaxInflatedBytes: number;
  osvShardRecords: number;
  /**
   * A worker silent (no heartbeat) this long is presumed dead and its jobs are retried. Shorter:
   * crashed work comes back sooner; but a worker stalled longer than this (a blocked event loop,
   * a slow database) is taken for dead while its job still runs, and the job runs twice.
   */
  deadWorkerAfterMs: number;
  /** How often an API process sends itself a NOTIFY on the cache-invalidation channel; a beat unheard for this long makes it bypass its caches. */
  invalidationHeartbeatMs: number;
  embeddedPgPort: number;
  /** When set, GET /metrics requires `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /**
   * Whose forwarded headers (X-Forwarded-For, -Proto, -Host) to believe for the client address:
   * false (default: the socket peer is the client), true (any proxy), a hop count, or addresses/CIDRs.
   */
  trustProxy: boolean | number | string[];
  /** Web console sessions: ended after this long without a request, and after `sessionMaxHours` whatever happens. */
  sessionIdleMinutes: number;
  sessionMaxHours: number;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  // Empty strings in the environment mean "unset", as shells and compose files often leave them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.RAMPART_DATA_DIR),
    baseUrl: (e.RAMPART_BASE_URL ?? `http://${e.HOST === '0.0.0.0' ? '127.0.0.1' : e.HOST}:${e.PORT}`).replace(/\/+$/, ''),
    baseUrlConfigured: e.RAMPART_BASE_URL !== undefined,
    secretKey: e.RAMPART_SECRET_KEY,
    bootstrapApiKey: e.RAMPART_BOOTSTRAP_API_KEY,
    allowPrivateNetworks: e.RAMPART_ALLOW_PRIVATE_NETWORKS,
    slackSigningSecret: e.RAMPART_SLACK_SIGNING_SECRET,
    rateLimitPerMinute: e.RAMPART_RATE_LIMIT_PER_MINUTE,
    bodyLimitBytes: e.RAMPART_BODY_LIMIT_BYTES,
    intakeGroupWaitMs: e.RAMPART_INTAKE_GROUP_WAIT_MS,
    workerConcurrency: e.RAMPART_WORKER_CONCURRENCY,
    deliveryConcurrency: e.RAMPART_DELIVERY_CONCURRENCY,
    osvMaxInflatedBytes: e.RAMPART_OSV_MAX_INFLATED_BYTES,
    osvShardRecords: e.RAMPART_OSV_SHARD_RECORDS,
    deadWorkerAfterMs: e.RAMPART_DEAD_WORKER_AFTER_SECONDS * 1000,
    invalidationHeartbeatMs: e.RAMPART_INVALIDATION_HEARTBEAT_SECONDS * 1000,
    embeddedPgPort: e.RAMPART_EMBEDDED_PG_PORT,
    metricsToken: e.RAMPART_METRICS_TOKEN,
    trustProxy: e.RAMPART_TRUST_PROXY ?? false,
    sessionIdleMinutes: e.RAMPART_SESSION_IDLE_MINUTES,
    sessionMaxHours: e.RAMPART_SESSION_MAX_HOURS,
    logLevel: e.LOG_LEVEL,
  });
}

/** `RAMPART_TRUST_PROXY`: `true`/`false`, a number of proxy hops, or a comma list of addresses and CIDRs. */
function parseTrustProxy(value: string, ctx: z.RefinementCtx): boolean | number | string[] {
  const v = value.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (/^\d{1,2}$/.test(v)) return Number(v);
  const entries = v.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = entries.filter((s) => {
    try {
      if (s.includes('/')) ipaddr.parseCIDR(s);
      else ipaddr.parse(s);
      return false;
    } catch {
      return true;
    }
  });
  if (bad.length || !entries.length) ctx.addIssue({ code: 'custom', message: `must be true, false, a hop count, or comma-separated addresses/CIDRs (bad: ${bad.join(', ') || 'empty'})` });
  return entries;
}
