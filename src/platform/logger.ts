import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * pino's `isoTime` (`,"time":"<ISO 8601>"`), formatted once per millisecond: under load several
 * lines (one per request) share a millisecond, and formatting the date was 1.2% of a request's
 * CPU (docs/performance.md).
 */
export function isoTimeOncePerMillisecond(now: () => number = Date.now): () => string {
  let lastMs = NaN;
  let last = '';
  return () => {
    const ms = now();
    if (ms !== lastMs) {
      lastMs = ms;
      last = `,"time":"${new Date(ms).toISOString()}"`;
    }
    return last;
  };
}

/**
 * JSON logs (to stdout unless `destination`). Secrets never reach them: headers carrying
 * credentials are redacted. (The request log's own line skips redaction: it holds no secret,
 * platform/http/request-log.ts.)
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'rampart' },
    timestamp: isoTimeOncePerMillisecond(),
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.apiKey', '*.token', '*.password', '*.secret'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
