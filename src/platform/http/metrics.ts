import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import { databaseHealth } from '../db/health.js';

/**
 * One read shared by the gauges of a scrape: prom-client collects every gauge at once, so two
 * gauges fed by the same query get the one in-flight promise instead of running it twice.
 */
export function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | null = null;
  return () => {
    inFlight ??= read().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
}

/**
 * Prometheus metrics at /metrics: request counts and latency by route (the route pattern, not
 * the raw URL, so ids do not explode the label set), process metrics, and job counts read from
 * graphile-worker's tables at scrape time.
 */
export function installMetrics(app: FastifyInstance, db: Database): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = installRequestMetrics(registry);
  new Gauge({
    name: 'rampart_jobs',
    help: 'Background jobs by task and state (queued, running, failed: retries exhausted)',
    labelNames: ['task', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const { rows } = await sql<{ task: string; state: string; n: number }>`
        SELECT t.identifier AS task,
               CASE WHEN j.locked_at IS NOT NULL THEN 'running'
                    WHEN j.attempts >= j.max_attempts THEN 'failed'
                    ELSE 'queued' END AS state,
               count(*)::int AS n
        FROM graphile_worker._private_jobs j
        JOIN graphile_worker._private_tasks t ON t.id = j.task_id
        GROUP BY 1, 2`.execute(db).catch(() => ({ rows: [] }));
      for (const r of rows) this.set({ task: r.task, state: r.state }, r.n);
    },
  });

  // The queue as a scraper alerts on it: jobs due now that no worker has taken, and how long the
  // oldest of them has been due (a growing age means workers are missing or saturated).
  const queued = sharedRead(() =>
    sql<{ task: string; n: number; age: number }>`
      SELECT t.identifier AS task, count(*)::int AS n, extract(epoch FROM now() - min(j.run_at))::float8 AS age
      FROM graphile_worker._private_jobs j
      JOIN graphile_worker._private_tasks t ON t.id = j.task_id
      WHERE j.locked_at IS NULL AND j.run_at <= now() AND j.attempts < j.max_attempts
      GROUP BY 1`.execute(db).then((r) => r.rows, () => []),
  );
  new Gauge({
    name: 'rampart_job_queue_depth',
    help: 'Background jobs due now and waiting for a worker, by task',
    labelNames: ['task'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await queued()) this.set({ task: r.task }, r.n);
    },
  });
  new Gauge({
    name: 'rampart_job_queue_oldest_age_seconds',
    help: 'How long the oldest job due now has been waiting for a worker, by task',
    labelNames: ['task'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await queued()) this.set({ task: r.task }, Math.max(0, r.age));
    },
  });

  new Counter({
    name: 'rampart_embedded_db_restarts_total',
    help: 'Restart attempts of the embedded PostgreSQL after it exited unexpectedly, by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ outcome: 'ok' }, databaseHealth.embeddedRestarts.ok);
      this.inc({ outcome: 'failed' }, databaseHealth.embeddedRestarts.failed);
    },
  });
  new Counter({
    name: 'rampart_db_outages_total',
    help: 'Database outages this process saw (one log line each when it began and when it ended)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(databaseHealth.outages);
    },
  });
  new Counter({
    name: 'rampart_db_unavailable_responses_total',
    help: 'API requests answered 503 because the database was unreachable',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(databaseHealth.unavailableResponses);
    },
  });

  app.addHook('onResponse', (request, reply, done) => {
    requests.record(request.method, request.routeOptions.url ?? (request.is404 ? 'unmatched' : 'unknown'), reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  return registry;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

interface RouteStats {
  labels: { method: string; route: string };
  byStatus: Map<number, number>;
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * `rampart_http_requests_total` (method, route, status) and
 * `rampart_http_request_duration_seconds` (method, route), counted per request in one Map entry
 * per (method, route). prom-client's Counter.inc and Histogram.observe validate and hash their
 * label object on every call (2.5% of a request's CPU, docs/performance.md); here a request
 * costs one string key and a bucket search, and the exposition is built at scrape time in
 * prom-client's own value format, which its registry prints (test/platform/metrics-http.test.ts pins it).
 */
function installRequestMetrics(registry: Registry): { record(method: string, route: string, status: number, seconds: number): void } {
  const routes = new Map<string, RouteStats>();
  const counterName = 'rampart_http_requests_total';
  const histogramName = 'rampart_http_request_duration_seconds';
  const metric = (name: string, help: string, type: 'counter' | 'histogram', values: () => unknown[]) =>
    ({
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
      reset: () => routes.clear(),
    }) as unknown as Metric;
  registry.registerMetric(
    metric(counterName, 'HTTP requests by method, route and status', 'counter', () =>
      [...routes.values()].flatMap((r) => [...r.byStatus].map(([status, n]) => ({ labels: { ...r.labels, status: String(status) }, value: n }))),
    ),
  );
  registry.registerMetric(
    metric(histogramName, 'HTTP request latency by method and route', 'histogram', () =>
      [...routes.values()].flatMap((r) => {
        let cumulative = 0;
        return [
          ...LATENCY_BUCKETS.map((le, i) => ({ metricName: `${histogramName}_bucket`, labels: { le }, sharedLabels: r.labels, value: (cumulative += r.buckets[i]!) })),
          { metricName: `${histogramName}_bucket`, labels: { le: '+Inf' }, sharedLabels: r.labels, value: r.count },
          { metricName: `${histogramName}_sum`, labels: {}, sharedLabels: r.labels, value: r.sum },
          { metricName: `${histogramName}_count`, labels: {}, sharedLabels: r.labels, value: r.count },
        ];
      }),
    ),
  );
  return {
    record(method, route, status, seconds) {
      const key = `${method} ${route}`;
      let r = routes.get(key);
      if (!r) routes.set(key, (r = { labels: { method, route }, byStatus: new Map(), buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0), sum: 0, count: 0 }));
      r.byStatus.set(status, (r.byStatus.get(status) ?? 0) + 1);
      let i = 0;
      while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]!) i++;
      r.buckets[i]!++;
      r.sum += seconds;
      r.count++;
    },
  };
}
