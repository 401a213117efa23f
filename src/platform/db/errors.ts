/** PostgreSQL unique_violation (SQLSTATE 23505): a name or key already taken. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** SQLSTATEs of a server going away: admin/crash shutdown, cannot connect now, in recovery. */
const SHUTDOWN_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
/**
 * SQLSTATEs of a connection that lost its session state under us: a named prepared statement
 * that is gone (26000) or already there (42P05) on the server connection we were handed. It is
 * what a pooler without sessions does (PgBouncer in transaction mode; refused at start by
 * session-check.ts, but a pooler can be reconfigured under a running process). Not a bug in the
 * request: 503, and the connection is discarded (database.ts).
 */
const SESSION_LOST_STATES = new Set(['26000', '42P05']);

export function isSessionStateLost(err: unknown): boolean {
  return typeof err === 'object' && err !== null && SESSION_LOST_STATES.has((err as { code?: unknown }).code as string);
}

/** What pg and pg-pool say when a connection is lost or cannot be had (they set no code). */
const POOL_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error and is not queryable/i,
  /Cannot use a pool after calling end on the pool/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
];

/**
 * True when `err` means the database is unreachable right now (down, restarting, failing
 * over), not that the query was wrong: such requests get 503 with Retry-After, not 500.
 * Looks through `cause` chains (kysely and our own wrappers keep the original there).
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 5) return false;
  const { code, message, cause, errors } = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    if (CONNECTION_CODES.has(code) || SHUTDOWN_STATES.has(code) || SESSION_LOST_STATES.has(code) || /^08/.test(code)) return true;
  }
  if (typeof message === 'string' && POOL_MESSAGES.some((re) => re.test(message))) return true;
  // AggregateError (e.g. ECONNREFUSED on both ::1 and 127.0.0.1).
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}
