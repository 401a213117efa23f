import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import { AppError, NotFoundError, ValidationError } from '../../platform/http/errors.js';
import { codeDetectionName, codeDetectionQuery, compileSigma } from '../alerts/index.js';
import { EVENT_LIMITS, EventsBodyError, ndjsonFastPath, parseEventsBody } from './events-body.fns.js';
import type { Logsource } from './detect-match.fns.js';
import { insertBatch, lastMatch, matchDays, samples, SAMPLE_SIZE } from './detect.repo.js';
import { noisyFields } from './noisy-fields.fns.js';

const inflate = promisify(gunzip);

export interface IncomingEvents {
  organizationId: string;
  body: Buffer;
  contentEncoding: string | undefined;
  logsource: Logsource;
  triggerId: string | null;
}

/** The body's text: inflated when gzip (bounded: a small body must not become gigabytes). */
async function textOf(body: Buffer, encoding: string | undefined): Promise<string> {
  const enc = (encoding ?? '').trim().toLowerCase();
  if (!enc || enc === 'identity') return body.toString('utf8');
  if (enc !== 'gzip' && enc !== 'x-gzip') throw new AppError(415, `Unsupported Content-Encoding ${JSON.stringify(enc)}; send gzip or none`);
  try {
    return (await inflate(body, { maxOutputLength: EVENT_LIMITS.maxInflatedBytes })).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError)
      throw new AppError(413, `The gzip body inflates to more than ${EVENT_LIMITS.maxInflatedBytes} bytes`);
    throw ValidationError.single('', 'The body is not valid gzip', 'invalid_gzip');
  }
}

/** Any body: parsed and checked whole, sanitized, stored as `[{logsource, event}]`; its errors as HTTP errors. */
function fullPath(text: string, logsource: Logsource) {
  let events;
  try {
    events = parseEventsBody(text, logsource);
  } catch (err) {
    if (err instanceof EventsBodyError) {
      if (err.code === 'too_many_events') throw new AppError(413, err.message);
      throw ValidationError.single(err.path, err.message, err.code);
    }
    throw err;
  }
  return { count: events.length, json: JSON.stringify(events) };
}

/**
 * Events in: the body parsed and checked whole (one bad event refuses the request, so a shipper's
 * retry resends nothing twice), then kept as one batch whose drain job is enqueued by the same
 * statement; NDJSON that needs no sanitizing is kept as the text it came as (ndjsonFastPath). Matching runs in workers (detect-match.jobs.ts).
 */
export function createDetectService(deps: { db: Database; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  async function accept(input: IncomingEvents): Promise<{ accepted: number }> {
    const text = await textOf(input.body, input.contentEncoding);
    const stored = ndjsonFastPath(text, input.logsource) ?? fullPath(text, input.logsource);
    await insertBatch(db, { organizationId: input.organizationId, eventsJson: stored.json, eventCount: stored.count, triggerId: input.triggerId, receivedAt: now() });
    return { accepted: stored.count };
  }

  return {
    accept,

    /** POST /api/events: the caller's organization. */
    async ingest(ctx: RequestContext, body: Buffer, contentEncoding: string | undefined, logsource: Logsource) {
      return accept({ organizationId: ctx.actor.organizationId, body, contentEncoding, logsource, triggerId: null });
    },

    /** GET /api/code-detections/{id}/activity: last match, matches per day, the evidence sample. */
    async activity(ctx: RequestContext, id: string, days: number, sampleCount: number) {
      const orgId = ctx.actor.organizationId;
      if (!(await codeDetectionName(db, orgId, id))) throw new NotFoundError('Code detection');
      const detectionId = id.toLowerCase();
      const since = new Date(now().getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
      const [perDay, last, sample] = await Promise.all([matchDays(db, detectionId, since), lastMatch(db, detectionId), sampleCount ? samples(db, detectionId, sampleCount) : Promise.resolve([])]);
      const matchesPerDay = perDay.map((d) => ({ day: d.day, matches: Number(d.matches) }));
      return {
        codeDetectionId: detectionId,
        lastMatchedAt: last ? last.toISOString() : null,
        matchesInWindow: matchesPerDay.reduce((n, d) => n + d.matches, 0),
        matchesPerDay,
        samples: sample.map((s) => ({ matchedAt: s.matchedAt.toISOString(), ruleTitle: s.ruleTitle, alertId: s.alertId, event: s.event })),
      };
    },

    /** GET /api/code-detections/{id}/noisy-fields: the field/value pairs its evidence sample matched on most. */
    async noisyFields(ctx: RequestContext, id: string, limit: number) {
      const query = await codeDetectionQuery(db, ctx.actor.organizationId, id);
      if (query === undefined) throw new NotFoundError('Code detection');
      const detectionId = id.toLowerCase();
      const sample = await samples(db, detectionId, SAMPLE_SIZE);
      // A rule the engine refuses (or no Sigma text) never matched: its sample is empty, nothing to count.
      const unit = query && sample.length ? compileSigma(query) : null;
      return {
        codeDetectionId: detectionId,
        sampledEvents: sample.length,
        fields: unit ? noisyFields(unit, sample.map((s) => ({ ruleTitle: s.ruleTitle, event: s.event })), limit) : [],
      };
    },
  };
}

export type DetectService = ReturnType<typeof createDetectService>;
