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
};
