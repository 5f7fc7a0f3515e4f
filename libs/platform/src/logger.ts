import pino, { type Logger } from 'pino';
import { telemetryEnabled, traceLogFields } from './telemetry/spans';

/** Structured JSON logs; readable lines when a person is watching (a TTY) or LOG_PRETTY=1. */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  const pretty = process.env.LOG_PRETTY === '1' || (process.env.LOG_PRETTY !== '0' && process.stdout.isTTY);
  return pino({
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    // A line written inside a span carries trace_id and span_id (only when tracing is on).
    ...(telemetryEnabled() ? { mixin: traceLogFields } : {}),
    ...(pretty
      ? {
          transport: {
            target: 'pino-pretty',
            options: {
              colorize: true,
              singleLine: true,
              translateTime: 'HH:MM:ss.l',
              ignore: 'pid,hostname,service,name',
            },
          },
        }
      : {}),
  });
}

export type { Logger };
