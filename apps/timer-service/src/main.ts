import './tracing'; // first: starts OpenTelemetry before anything it traces is loaded
import 'reflect-metadata';
import {
  checkRedis,
  ConfigError,
  createLogger,
  shutdownTelemetry,
  telemetryStatus,
} from '@dominoes/platform';
import { readTimerConfig, type TimerConfig } from './config';
import { startTimerService } from './timer-app';

async function main(): Promise<void> {
  let config: TimerConfig;
  try {
    config = readTimerConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`timer-service: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger('timer-service', config.logLevel);
  if (telemetryStatus().mode !== 'off') logger.info({ tracing: telemetryStatus() }, 'tracing on');
  const problem = await checkRedis(config.redisUrl);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
  const timer = await startTimerService(config, { logger });

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'timer-service stopping: finishing the jobs in hand');
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownGraceMs);
    force.unref();
    timer
      .shutdown()
      .then(() => shutdownTelemetry())
      .then(() => {
        logger.info('timer-service stopped');
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

main().catch((error: unknown) => {
  console.error('timer-service failed to start:', error);
  process.exit(1);
});
