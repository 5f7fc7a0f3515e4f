import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { startService, type RunningService, type ServiceOptions } from '@dominoes/platform';
import type { TimerConfig } from './config';
import { DeadlineWorker } from './deadline-worker';
import { TimerMetrics } from './metrics';
import { TimerModule } from './timer.module';

export interface TimerApp extends RunningService {
  readonly app: INestApplication;
  readonly metrics: TimerMetrics;
  readonly worker: DeadlineWorker;
}

export type TimerOptions = ServiceOptions;

/** Builds and starts the timer-service; main.ts and the tests start it the same way. */
export async function startTimerService(config: TimerConfig, options: TimerOptions = {}): Promise<TimerApp> {
  const { app, port, logger, metrics } = await startService('timer-service', config, options, {
    metrics: TimerMetrics,
    module: (deps) => TimerModule.forRoot({ config, ...deps }),
  });
  logger.info(
    { port, concurrency: config.concurrency, prefix: config.redisPrefix, shards: config.tableShards },
    `timer-service running; health and metrics on :${port}`,
  );
  let closing: Promise<void> | null = null;
  return { app, port, metrics, worker: app.get(DeadlineWorker), shutdown: () => (closing ??= app.close()) };
}
