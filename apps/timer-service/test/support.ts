import { createLogger } from '@dominoes/platform';
import { readTimerConfig } from '../src/config';
import { startTimerService, type TimerApp } from '../src/timer-app';

/** A timer-service on a free port, quiet unless TEST_LOG_LEVEL is set, for the suites here. */
export function startTestTimer(
  redisUrl: string,
  prefix: string,
  label: string,
  env: Record<string, string> = {},
): Promise<TimerApp> {
  const config = readTimerConfig({
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    PORT: '0',
    HOST: '127.0.0.1',
    ...env,
  });
  return startTimerService(config, {
    logger: createLogger(label, process.env.TEST_LOG_LEVEL ?? 'silent'),
    defaultMetrics: false,
  });
}
