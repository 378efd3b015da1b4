import pino from 'pino';

export type Logger = pino.Logger;

/**
 * Structured JSON logs, one object per line, with the service name on every line. An unknown
 * level (a typo in LOG_LEVEL) falls back to info instead of throwing: the service's config
 * reader reports it.
 */
export function createLogger(
  service: string,
  level = process.env.LOG_LEVEL ?? 'info',
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    name: service,
    level: level === 'silent' || level in pino.levels.values ? level : 'info',
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * A service's process entry: runs `start` with the service's logger; a start-up failure
 * (bad configuration, database unreachable, port taken, ...) becomes one JSON line at error
 * level, even when LOG_LEVEL is above error, and the process exits 1.
 */
export function runMain(
  service: string,
  start: (logger: Logger) => Promise<unknown>,
  opts: { logger?: Logger; exit?: (code: number) => void } = {},
): Promise<void> {
  const logger = opts.logger ?? createLogger(service);
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  return start(logger).then(
    () => undefined,
    (err: unknown) => {
      const out = logger.isLevelEnabled('error') ? logger : logger.child({}, { level: 'error' });
      out.error({ err }, 'start-up failed');
      exit(1);
    },
  );
}
