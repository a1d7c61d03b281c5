import pino, { type Logger } from 'pino';

export type { Logger };

/** JSON log lines. Authorization headers and tokens are never written. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: ['authorization', 'headers.authorization', 'req.headers.authorization', 'token'], censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
