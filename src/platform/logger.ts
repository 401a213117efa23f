import pino, { type Logger } from 'pino';

/** How long a log line may wait in the buffer before it is written (it is written at exit too). */
export const LOG_FLUSH_MS = 200;

/**
 * JSON logs. Secrets never reach them: headers carrying credentials are redacted.
 *
 * Lines are written to stdout in batches (at 4 KiB, every LOG_FLUSH_MS, and synchronously at
 * exit) instead of one write(2) per line: the request log's write was ~15 µs of the API's
 * ~170 µs of CPU per request (docs/performance.md, issue 27 §5). What a hard kill (SIGKILL, OOM)
 * can lose is the last LOG_FLUSH_MS of lines.
 */
export function createLogger(level: string): Logger {
  const destination = pino.destination({ dest: 1, sync: true, minLength: 4096, periodicFlush: LOG_FLUSH_MS });
  process.once('exit', () => destination.flushSync());
  return pino(
    {
      level,
      base: { service: 'rampart' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', '*.apiKey', '*.token', '*.password', '*.secret'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
