import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

/**
 * The request log: one line per request, written when the response is finished:
 * `{"level":30,"time":…,"service":"rampart","reqId":…,"method":…,"route":…,"status":…,"ms":…,"msg":"request completed"}`
 * (`error` level for 5xx).
 *
 * What it costs matters: it runs on every request (docs/performance.md, issue 27 item 5). So
 * - the line goes through a child logger made once, without the redaction paths of
 *   createLogger: redaction walks every logged object and the line holds only the fields
 *   above, none of them a secret (a caller's `x-request-id` is kept only when it matches
 *   app.ts's REQUEST_ID pattern). `reqId` is written first, so the line reads exactly as it did
 *   from a per-request child;
 * - `request.log` (the per-request child with `reqId`) is built only when something logs
 *   through it (`lazyChildLoggerFactory`): most requests never do.
 */
export function installRequestLog(app: FastifyInstance): void {
  const lines = (app.log as Logger).child({}, { redact: [] });
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    const level = status >= 500 ? 'error' : 'info';
    // A route's own `logLevel` still silences its line, as it did when the line went through request.log.
    const routeLevel = request.routeOptions.logLevel;
    if (routeLevel && (lines.levels.values[routeLevel] ?? 0) > lines.levels.values[level]!) return done();
    lines[level](
      { reqId: request.id, method: request.method, route: request.routeOptions.url, status, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request completed',
    );
    done();
  });
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type Level = (typeof LEVELS)[number];
type LogFn = FastifyBaseLogger['info'];

/**
 * `request.log` as a stand-in that makes the real child (parent.child(bindings, options), what
 * Fastify's default factory does at once) on first use. Fastify checks that the object it gets
 * has the logger methods; they are on the prototype.
 */
class LazyChildLogger {
  private made: FastifyBaseLogger | null = null;
  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }
  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }
  set level(level: string) {
    this.logger.level = level;
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}
for (const level of LEVELS) {
  Object.defineProperty(LazyChildLogger.prototype, level, {
    value: function (this: { logger: FastifyBaseLogger }, ...args: Parameters<LogFn>) {
      (this.logger[level as Level] as (...a: unknown[]) => void)(...args);
    },
  });
}

/** Fastify's `childLoggerFactory`: the per-request logger, lazily (above). */
export function lazyChildLoggerFactory(this: FastifyInstance, logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
