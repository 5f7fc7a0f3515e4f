import './tracing'; // first: starts OpenTelemetry before anything it traces is loaded
import 'reflect-metadata';
import {
  checkRedis,
  ConfigError,
  createLogger,
  exitGracefullyOnSignals,
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

  exitGracefullyOnSignals({
    name: 'timer-service',
    logger,
    graceMs: config.shutdownGraceMs,
    starting: { message: 'timer-service stopping: finishing the jobs in hand' },
    shutdown: () => timer.shutdown(),
  });
}

main().catch((error: unknown) => {
  console.error('timer-service failed to start:', error);
  process.exit(1);
});
