import { Pool } from 'undici';
import { percentile } from './stats.js';

/**
 * A small closed-loop HTTP load generator on undici's Pool (autocannon declares no `engines`
 * field, so we do not rely on it supporting Node 20). `connections` workers each keep one
 * request in flight on their own keep-alive connection; a response's latency is measured from
 * just before `pool.request` to the last byte of its body.
 *
 * One continuous run: requests completing during the first `warmupMs` are discarded, those
 * completing in the next `durationMs` are measured, then the workers stop. Every request has a
 * timeout, so a run is bounded by warmup + duration + timeout.
 */
export interface LoadOptions {
  origin: string; // http://127.0.0.1:<port>, never anything else
  path: string;
  headers?: Record<string, string>;
  connections: number;
  warmupMs: number;
  durationMs: number;
  requestTimeoutMs?: number;
}

export interface LoadResult {
  durationS: number;
  requests: number;
  /** Every response, warm-up and tail included (for per-request costs over a whole run). */
  totalResponses: number;
  rps: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  /** Statuses in the measured window, plus any non-2xx seen during warm-up. */
  statusCounts: Record<string, number>;
  errorSamples: string[];
  bytesPerResponse: number;
  latencyMs: { mean: number; p50: number; p90: number; p99: number; p999: number; max: number };
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult & { slices: LoadSlice[] }> {
  const url = new URL(opts.origin);
  if (url.hostname !== '127.0.0.1') throw new Error(`load generator only talks to 127.0.0.1, not ${url.hostname}`);
  const timeout = opts.requestTimeoutMs ?? 10_000;
  const pool = new Pool(opts.origin, {
    connections: opts.connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: timeout,
    bodyTimeout: timeout,
    connectTimeout: timeout,
  });

  let latencies = new Float64Array(1 << 17);
  let n = 0;
  let total = 0;
  let bytes = 0;
  let ok2xx = 0;
  let non2xx = 0;
  let errors = 0;
  const statusCounts: Record<string, number> = {};
  const errorSamples: string[] = [];

  const start = performance.now();
  const measureFrom = start + opts.warmupMs;
  const measureTo = measureFrom + opts.durationMs;

  const record = (t0: number, t1: number, status: number | null, size: number, err?: unknown) => {
    if (status !== null) total++;
    if (t1 < measureFrom || t1 > measureTo) {
      // Warm-up (or the tail after the window): failures still count, they are failures.
      if (status === null) {
        errors++;
        if (errorSamples.length < 5) errorSamples.push(String(err));
      } else if (status < 200 || status > 299) {
        non2xx++;
        statusCounts[status] = (statusCounts[status] ?? 0) + 1;
      }
      return;
    }
    if (status === null) {
      errors++;
      if (errorSamples.length < 5) errorSamples.push(String(err));
      return;
    }
    statusCounts[status] = (statusCounts[status] ?? 0) + 1;
    if (status < 200 || status > 299) non2xx++;
    else ok2xx++;
    if (n === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[n++] = t1 - t0;
    bytes += size;
  };

  const worker = async () => {
    while (performance.now() < measureTo) {
      const t0 = performance.now();
      try {
        const res = await pool.request({ method: 'GET', path: opts.path, headers: opts.headers ?? {} });
        const body = await res.body.arrayBuffer();
        record(t0, performance.now(), res.statusCode, body.byteLength);
      } catch (err) {
        record(t0, performance.now(), null, 0, err);
        // A refused or reset connection must not turn into a hot loop.
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: opts.connections }, worker));
  } finally {
    await pool.close().catch(() => pool.destroy());
  }

  return summarize([
    { durationS: opts.durationMs / 1000, samples: latencies.slice(0, n), totalResponses: total, ok2xx, non2xx, errors, statusCounts, errorSamples, bytes },
  ]);
}

export interface LoadSlice {
  durationS: number;
  samples: Float64Array;
  totalResponses: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  statusCounts: Record<string, number>;
  errorSamples: string[];
  bytes: number;
}

/** One result from several measured slices of the same server (percentiles over all samples). */
export function summarize(slices: LoadSlice[]): LoadResult & { slices: LoadSlice[] } {
  const n = slices.reduce((a, s) => a + s.samples.length, 0);
  const sorted = new Float64Array(n);
  let off = 0;
  for (const s of slices) {
    sorted.set(s.samples, off);
    off += s.samples.length;
  }
  sorted.sort();
  const q = (p: number) => percentile(sorted, p * 100);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i]!;
  const statusCounts: Record<string, number> = {};
  for (const s of slices) for (const [k, v] of Object.entries(s.statusCounts)) statusCounts[k] = (statusCounts[k] ?? 0) + v;
  const total = (k: 'totalResponses' | 'ok2xx' | 'non2xx' | 'errors' | 'bytes' | 'durationS') => slices.reduce((a, s) => a + s[k], 0);
  const durationS = total('durationS');
  return {
    durationS,
    requests: n,
    totalResponses: total('totalResponses'),
    rps: n / durationS,
    ok2xx: total('ok2xx'),
    non2xx: total('non2xx'),
    errors: total('errors'),
    statusCounts,
    errorSamples: slices.flatMap((s) => s.errorSamples).slice(0, 5),
    bytesPerResponse: n ? Math.round(total('bytes') / n) : 0,
    latencyMs: { mean: n ? sum / n : NaN, p50: q(0.5), p90: q(0.9), p99: q(0.99), p999: q(0.999), max: n ? sorted[n - 1]! : NaN },
    slices,
  };
}
