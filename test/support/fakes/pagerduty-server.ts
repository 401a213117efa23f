import { sendJson, startServer, type RecordedRequest } from './http-server.js';

/**
 * PagerDuty Events API v2: `POST /v2/enqueue`, JSON, `routing_key` in the body. A valid event
 * answers 202 `{status:"success", message:"Event processed", dedup_key}`; an invalid one 400
 * `{status:"invalid event", message:"Event object is invalid", errors:[…]}`; throttling 429.
 * Trigger events need `payload.summary` (≤ 1,024), `payload.source`, `payload.severity` (critical,
 * error, warning, info); acknowledge/resolve need `dedup_key`. Keeps alerts by dedup_key.
 */
export interface FakePagerDuty {
  apiBaseUrl: string;
  requests: RecordedRequest[];
  events: Array<Record<string, any>>;
  /** dedup_key → triggered | resolved. */
  alerts: Map<string, 'triggered' | 'resolved'>;
  throttleNext(n: number): void;
  close(): Promise<void>;
}

const SEVERITIES = ['critical', 'error', 'warning', 'info'];

export async function startFakePagerDuty(opts: { routingKey: string }): Promise<FakePagerDuty> {
  const events: FakePagerDuty['events'] = [];
  const alerts = new Map<string, 'triggered' | 'resolved'>();
  let throttle = 0;
  const server = await startServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v2/enqueue') return sendJson(res, 404, { status: 'not found' });
    if (throttle > 0) {
      throttle--;
      return sendJson(res, 429, { status: 'throttle event', message: 'Requests for this service are arriving too quickly.  Please retry later.' });
    }
    let e: Record<string, any>;
    try {
      e = JSON.parse(req.body) as Record<string, any>;
    } catch {
      return sendJson(res, 400, { status: 'invalid event', message: 'Event object is invalid', errors: ['Invalid JSON'] });
    }
    const errors: string[] = [];
    if (e.routing_key !== opts.routingKey) errors.push("'routing_key' is invalid");
    if (!['trigger', 'acknowledge', 'resolve'].includes(e.event_action)) errors.push("'event_action' is invalid");
    if (e.event_action === 'trigger') {
      const p = e.payload ?? {};
      if (typeof p.summary !== 'string' || p.summary.length === 0 || p.summary.length > 1024) errors.push("'payload.summary' is missing or too long");
      if (typeof p.source !== 'string' || !p.source) errors.push("'payload.source' is missing");
      if (!SEVERITIES.includes(p.severity)) errors.push("'payload.severity' is invalid");
    } else if (typeof e.dedup_key !== 'string' || !e.dedup_key) errors.push("'dedup_key' is missing");
    if (errors.length) return sendJson(res, 400, { status: 'invalid event', message: 'Event object is invalid', errors });
    const dedup = (e.dedup_key as string | undefined) ?? `pd-${events.length + 1}`;
    events.push(e);
    if (e.event_action === 'trigger') alerts.set(dedup, 'triggered');
    if (e.event_action === 'resolve' && alerts.has(dedup)) alerts.set(dedup, 'resolved');
    sendJson(res, 202, { status: 'success', message: 'Event processed', dedup_key: dedup });
  });
  return {
    apiBaseUrl: server.url,
    requests: server.requests,
    events,
    alerts,
    throttleNext(n) {
      throttle += n;
    },
    close: server.close,
  };
}
