/**
 * Process-wide counters of the database's health, read by /metrics at scrape time. They live
 * here (not in the metrics registry) because the embedded database is started before the
 * HTTP app and its registry exist.
 */
export const databaseHealth = {
  /** Restart attempts of the embedded PostgreSQL after it exited unexpectedly, by outcome. */
  embeddedRestarts: { ok: 0, failed: 0 },
  /** Requests answered 503 because the database was unreachable. */
  unavailableResponses: 0,
  /** Outages seen by this process: a 503 for an unreachable database after none (or after it came back). */
  outages: 0,
  /** Since when the current outage runs (null: the database answers), and its 503s so far. */
  down: null as null | { since: number; responses: number },
};

type OutageLog = { error(obj: object, msg: string): void; info(obj: object, msg: string): void };

/**
 * One log line when the database goes away and one when it is back (issue 46 item 7), not one
 * per request: an 18 s outage wrote 927 error lines. A request answered 503 for an unreachable
 * database opens an outage (logged once, counted in `rampart_db_outages_total`); the next API
 * request answered without a server error closes it, with its length and its 503s.
 */
export function noteDatabaseUnavailable(log: OutageLog, err: { message: string; code?: string }): void {
  databaseHealth.unavailableResponses++;
  if (databaseHealth.down) {
    databaseHealth.down.responses++;
    return;
  }
  databaseHealth.outages++;
  databaseHealth.down = { since: Date.now(), responses: 1 };
  log.error({ err: { message: err.message, code: err.code } }, 'database unavailable: answering 503 with Retry-After until it is back');
}

export function noteDatabaseAnswered(log: OutageLog): void {
  const down = databaseHealth.down;
  if (!down) return;
  databaseHealth.down = null;
  log.info({ outageMs: Date.now() - down.since, unavailableResponses: down.responses }, 'database is back');
}
