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
 * stdout for the logs: the lines of one event-loop turn are written together, synchronously, at
 * the end of that turn (setImmediate), and at process exit. One `write(2)` per turn on the main
 * thread instead of pino's default (an asynchronous write through libuv's thread pool per batch,
 * with the wake-ups that costs on every request line: docs/performance.md). Lines wait for no
 * timer: what a hard kill can lose is the current turn's lines, as the asynchronous default lost
 * the lines queued behind the write in flight. pino's SonicBoom does the write (partial writes,
 * EAGAIN on a non-blocking pipe). Trade-off: a reader that stops draining stdout (a stuck log
 * shipper on a pipe) now holds the process back, where the default let lines pile up in memory.
 */
export function stdoutOncePerTurn(fd = 1): DestinationStream & { flushSync(): void; flush(cb?: (err?: Error) => void): void } {
  const out = pino.destination({ dest: fd, sync: true });
  let pending = '';
  let scheduled = false;
  const flushSync = () => {
    if (pending === '') return;
    const lines = pending;
    pending = '';
    out.write(lines);
  };
  const endOfTurn = () => {
    scheduled = false;
    flushSync();
  };
  process.on('exit', flushSync);
  return {
    write(line: string) {
      pending += line;
      if (!scheduled) {
        scheduled = true;
        setImmediate(endOfTurn);
      }
    },
    flushSync,
    flush(cb) {
      flushSync();
      cb?.();
    },
  };
}

let stdout: DestinationStream | null = null;

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
  return pino(options, destination ?? (stdout ??= stdoutOncePerTurn()));
}
