import pino, { type Logger } from 'pino';

/** JSON logs. Secrets never reach them: headers carrying credentials are redacted. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'rampart' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.apiKey', '*.token', '*.password', '*.secret'],
      censor: '[redacted]',
    },
  });
}
