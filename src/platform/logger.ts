import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * JSON logs (to stdout unless `destination`). Secrets never reach them: headers carrying
 * credentials are redacted. (The request log's own line skips redaction: it holds no secret,
 * platform/http/request-log.ts.)
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'rampart' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.apiKey', '*.token', '*.password', '*.secret'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
