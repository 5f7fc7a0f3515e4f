import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { createLogger, PinoNestLogger, systemClock, type Clock, type Logger } from '@dominoes/platform';
import type { TimerConfig } from './config';
import { DeadlineWorker } from './deadline-worker';
import { TimerMetrics } from './metrics';
import { TimerModule } from './timer.module';

export interface TimerApp {
  readonly app: INestApplicationContext;
  /** The port of /health and /metrics (useful with PORT=0). */
  readonly port: number;
  readonly metrics: TimerMetrics;
  readonly worker: DeadlineWorker;
  /** Finishes the jobs in hand, then closes everything. */
  shutdown(): Promise<void>;
}

export interface TimerOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly defaultMetrics?: boolean;
}

/** Builds and starts the timer-service; main.ts and the tests start it the same way. */
export async function startTimerService(config: TimerConfig, options: TimerOptions = {}): Promise<TimerApp> {
  const logger = options.logger ?? createLogger('timer-service', config.logLevel);
  const clock = options.clock ?? systemClock;
  const metrics = new TimerMetrics(options.defaultMetrics ?? true);
  const app = await NestFactory.createApplicationContext(
    TimerModule.forRoot({ config, clock, logger, metrics }),
    {
      logger: new PinoNestLogger(logger),
    },
  );
  await app.init();
  const port = app.get(TimerModule).port;
  logger.info(
    { port, concurrency: config.concurrency, prefix: config.redisPrefix, shards: config.tableShards },
    `timer-service running; health and metrics on :${port}`,
  );
  let closing: Promise<void> | null = null;
  return {
    app,
    port,
    metrics,
    worker: app.get(DeadlineWorker),
    shutdown: () => (closing ??= app.close()),
  };
}
