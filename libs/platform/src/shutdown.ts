import type { Logger } from 'pino';
import { shutdownTelemetry } from './telemetry';

export interface GracefulShutdown {
  /** The service's name, for the closing log line. */
  readonly name: string;
  readonly logger: Logger;
  /** How long the shutdown may take before the process exits anyway (exit code 1). */
  readonly graceMs: number;
  /** What to log as the shutdown starts (the signal is added). */
  readonly starting: { readonly message: string; readonly fields?: () => Record<string, unknown> };
  /** Drains the service: finish the work in hand, close connections. */
  readonly shutdown: () => Promise<void>;
}

/**
 * On SIGTERM or SIGINT: drain the service once, flush the traces, and exit 0; exit 1 if draining
 * fails or takes longer than the grace period.
 */
export function exitGracefullyOnSignals(options: GracefulShutdown): void {
  const { name, logger, graceMs, starting, shutdown } = options;
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, ...(starting.fields?.() ?? {}) }, starting.message);
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, graceMs);
    force.unref();
    shutdown()
      .then(() => shutdownTelemetry())
      .then(() => {
        logger.info(`${name} stopped`);
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
