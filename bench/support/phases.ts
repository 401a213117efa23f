/**
 * Where a sync's time goes, without touching the handler: the job gets a Kysely on the same pool
 * (same CamelCase plugin as openDatabase) whose query log marks when the first write of items
 * started and sums client-side time per statement, and an HTTP client wrapper that sums the time
 * spent in requests.
 *   http        = time inside http.request (connect → last body byte), summed
 *   parse + map = from the handler's start to the first item INSERT, minus http
 *   store       = from the first item INSERT to the handler's return (enrichment of the later
 *                 chunks runs in it, beside the writes)
 * Statement times include waiting for the event loop, so with concurrent writes they are an
 * upper bound on the database's own share. (Never destroy() that Kysely: it would end the
 * shared pool.)
 */
import { performance } from 'node:perf_hooks';
import { CamelCasePlugin, Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { Database } from '../../src/platform/db/database.js';
import type { DB } from '../../src/platform/db/schema.js';
import type { HttpClient } from '../../src/modules/intel-ingest/connectors/connector.js';

export interface Phases {
  httpSeconds: number;
  parseSeconds: number;
  storeSeconds: number;
}

export interface StatementStat {
  sql: string;
  count: number;
  totalMs: number;
  meanMs: number;
}

const ITEMS_WRITE = /^\s*insert into "?intel_items"?/i;

export function instrument(pool: pg.Pool, http: HttpClient) {
  let httpMs = 0;
  let storeStart: number | null = null;
  const stats = new Map<string, { n: number; ms: number }>();
  const db: Database = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new CamelCasePlugin()],
    log: (e) => {
      if (e.level !== 'query') return;
      const head = e.query.sql.slice(0, 120); // the SQL of a 500-row INSERT is ~100 kB
      if (ITEMS_WRITE.test(head)) storeStart ??= performance.now() - e.queryDurationMillis;
      const key = head.replace(/\s+/g, ' ').trim().slice(0, 60);
      const s = stats.get(key) ?? { n: 0, ms: 0 };
      s.n++;
      s.ms += e.queryDurationMillis;
      stats.set(key, s);
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
      stats.clear();
    },
    phases(start: number, end: number): Phases {
      const s = storeStart ?? end;
      return { httpSeconds: httpMs / 1000, parseSeconds: (s - start - httpMs) / 1000, storeSeconds: (end - s) / 1000 };
    },
    /** Statements by total client-side time, largest first. */
    top(n = 8): StatementStat[] {
      return [...stats].sort((a, b) => b[1].ms - a[1].ms).slice(0, n).map(([sql, s]) => ({ sql, count: s.n, totalMs: Math.round(s.ms), meanMs: s.ms / s.n }));
    },
  };
}
