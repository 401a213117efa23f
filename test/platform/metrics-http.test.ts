import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';

/**
 * The per-request metrics in Prometheus' text format, exactly: a scraper's queries and alerts
 * depend on the names, labels and bucket bounds. (They are counted without prom-client's
 * per-call label work since issue 27 §5: this pins that the exposition did not change.)
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const lines = (body: string, name: string) => body.split('\n').filter((l) => l.startsWith(name));

describe('HTTP request metrics', () => {
  it('counts requests by method, route pattern and status, and their latency by method and route', async () => {
    const admin = bearer(t.orgA.apiKey.key);
    for (let i = 0; i < 3; i++) await t.app.inject({ url: '/api/output-destinations', headers: admin });
    await t.app.inject({ url: '/api/output-destinations' }); // 401
    await t.app.inject({ url: '/api/output-destinations/not-a-uuid', headers: admin }); // 400
    await t.app.inject({ method: 'DELETE', url: '/api/nowhere' }); // 404, no route
    const body = (await t.app.inject({ url: '/metrics' })).body;

    expect(body).toContain('# HELP rampart_http_requests_total HTTP requests by method, route and status\n# TYPE rampart_http_requests_total counter\n');
    expect(lines(body, 'rampart_http_requests_total{').sort()).toEqual(
      [
        'rampart_http_requests_total{method="GET",route="/api/output-destinations",status="200"} 3',
        'rampart_http_requests_total{method="GET",route="/api/output-destinations",status="401"} 1',
        'rampart_http_requests_total{method="GET",route="/api/output-destinations/:id",status="400"} 1',
        'rampart_http_requests_total{method="DELETE",route="unmatched",status="404"} 1',
      ].sort(),
    );

    expect(body).toContain('# HELP rampart_http_request_duration_seconds HTTP request latency by method and route\n# TYPE rampart_http_request_duration_seconds histogram\n');
    const list = lines(body, 'rampart_http_request_duration_seconds').filter((l) => l.includes('route="/api/output-destinations"}'));
    const bounds = ['0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '+Inf'];
    expect(list.map((l) => l.replace(/ [\d.e+-]+$/, ''))).toEqual([
      ...bounds.map((le) => `rampart_http_request_duration_seconds_bucket{le="${le}",method="GET",route="/api/output-destinations"}`),
      'rampart_http_request_duration_seconds_sum{method="GET",route="/api/output-destinations"}',
      'rampart_http_request_duration_seconds_count{method="GET",route="/api/output-destinations"}',
    ]);
    const values = list.map((l) => Number(l.split(' ').at(-1)));
    // Cumulative buckets ending at the count (4: three 200s and the 401), a positive sum.
    for (let i = 1; i < bounds.length; i++) expect(values[i]).toBeGreaterThanOrEqual(values[i - 1]!);
    expect(values[bounds.length - 1]).toBe(4);
    expect(values.at(-1)).toBe(4);
    expect(values.at(-2)).toBeGreaterThan(0);
    expect(lines(body, 'rampart_http_request_duration_seconds_count{').sort()).toEqual(
      [
        'rampart_http_request_duration_seconds_count{method="GET",route="/api/output-destinations"} 4',
        'rampart_http_request_duration_seconds_count{method="GET",route="/api/output-destinations/:id"} 1',
        'rampart_http_request_duration_seconds_count{method="DELETE",route="unmatched"} 1',
      ].sort(),
    );
  });
});
