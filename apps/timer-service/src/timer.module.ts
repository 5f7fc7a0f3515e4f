import { Module, type DynamicModule } from '@nestjs/common';
import {
  createDeadlineQueue,
  HealthController,
  lifecycle,
  MetricsController,
  READINESS,
  ServiceMetrics,
  ShardedStreamsClient,
  type ServiceDeps,
  type ReadinessCheck,
} from '@dominoes/platform';
import type { TimerConfig } from './config';
import { DeadlineWorker } from './deadline-worker';
import { TimerMetrics } from './metrics';

/** What startService builds the module from, and the service's configuration. */
export interface TimerDeps extends ServiceDeps<TimerMetrics> {
  readonly config: TimerConfig;
}

/**
 * The timer-service: the deadline worker, and on its port only /health and /metrics.
 * /health/ready is 200 when Redis answers PING and the worker runs.
 */
@Module({})
export class TimerModule {
  static forRoot(deps: TimerDeps): DynamicModule {
    const { config } = deps;
    return {
      module: TimerModule,
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: ServiceMetrics, useValue: deps.metrics },
        {
          // The same transport the gateway uses; the timer only emits (no reply channel).
          provide: ShardedStreamsClient,
          useFactory: () =>
            new ShardedStreamsClient({
              redisUrl: config.redisUrl,
              prefix: config.redisPrefix,
              shards: config.tableShards,
              replyChannel: null,
              connectionName: 'timer-service',
            }),
        },
        {
          provide: DeadlineWorker,
          inject: [ShardedStreamsClient],
          useFactory: (client: ShardedStreamsClient) =>
            new DeadlineWorker(
              config,
              client,
              createDeadlineQueue(config.redisUrl, config.redisPrefix),
              deps.clock,
              deps.metrics,
              deps.logger,
            ),
        },
        {
          provide: READINESS,
          inject: [ShardedStreamsClient, DeadlineWorker],
          useFactory: (client: ShardedStreamsClient, worker: DeadlineWorker): ReadinessCheck[] => [
            { name: 'redis', probe: () => client.ping() },
            { name: 'worker', probe: () => worker.running, up: 'running', down: 'stopped' },
          ],
        },
        // The port closes first on shutdown, then the worker finishes the jobs in hand.
        lifecycle([DeadlineWorker], (worker: DeadlineWorker) => ({
          start: [() => worker.start()],
          close: [() => worker.close(), () => deps.logger.debug('timer-service connections closed')],
        })),
      ],
    };
  }
}
