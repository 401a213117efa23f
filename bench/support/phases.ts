/**
 * Where a sync's time goes, without touching the handler: the job gets a Kysely on the same pool
 * (same CamelCase plugin as openDatabase) whose query log marks when the first INSERT INTO
 * intel_items started and calls `onCommit` after each COMMIT, and an HTTP client wrapper that
 * sums the time spent in requests.
 *   http        = time inside http.request (connect → last body byte), summed
 *   parse + map = from the handler's start to the first item INSERT, minus http
 *   store       = from the first item INSERT to the handler's return (incl. COMMIT)
 * (Never destroy() that Kysely: it would end the shared pool.)
 */
import { performance } from 'node:perf_hooks';
import { CamelCasePlugin, Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { Database } from '../../src/platform/db/database.js';
import type { DB } from '../../src/platform/db/schema.js';
import type { HttpClient } from '../../src/modules/intel/connectors/connector.js';

export interface Phases {
  httpSeconds: number;
  parseSeconds: number;
  storeSeconds: number;
  storeStatements: number;
}

export function instrument(pool: pg.Pool, http: HttpClient, onCommit: () => void = () => {}) {
  let httpMs = 0;
  let storeStart: number | null = null;
  let storeStatements = 0;
  const db: Database = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new CamelCasePlugin()],
    log: (e) => {
      if (e.level === 'query' && e.query.sql === 'commit') onCommit();
      if (e.level !== 'query' || !/^insert into "intel_items"/.test(e.query.sql)) return;
      storeStatements++;
      storeStart ??= performance.now() - e.queryDurationMillis;
    },
  });
  const timedHttp: HttpClient = {
    async request(url, init) {
      const t0 = performance.now();
      try {
        return await http.request(url, init);
      } finally {
        httpMs += performance.now() - t0;
      }
    },
  };
  return {
    db,
    http: timedHttp,
    reset() {
      httpMs = 0;
      storeStart = null;
      storeStatements = 0;
    },
    phases(start: number, end: number): Phases {
      const s = storeStart ?? end;
      return { httpSeconds: httpMs / 1000, parseSeconds: (s - start - httpMs) / 1000, storeSeconds: (end - s) / 1000, storeStatements };
    },
  };
}

/**
 * A Kysely on the same pool that sums client-side time and count per statement (first 60
 * characters of its SQL): for the enrichment, whose cost is mostly round trips, this names the
 * statements that take the time. The time includes waiting for the event loop, so with
 * concurrent batches it is an upper bound on the database's own share.
 */
export function statementLog(pool: pg.Pool) {
  const stats = new Map<string, { n: number; ms: number }>();
  const db: Database = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new CamelCasePlugin()],
    log: (e) => {
      const key = e.query.sql.slice(0, 120).replace(/\s+/g, ' ').trim().slice(0, 60); // the SQL of a 500-row INSERT is ~100 kB
      const s = stats.get(key) ?? { n: 0, ms: 0 };
      s.n++;
      s.ms += e.queryDurationMillis;
      stats.set(key, s);
    },
  });
  return {
    db,
    reset: () => stats.clear(),
    /** Statements by total time, largest first. */
    top: (n = 8) => [...stats].sort((a, b) => b[1].ms - a[1].ms).slice(0, n).map(([sql, s]) => ({ sql, count: s.n, totalMs: Math.round(s.ms), meanMs: s.ms / s.n })),
  };
}
