import { Module, type DynamicModule } from '@nestjs/common';
import {
  createDeadlineQueues,
  factory,
  serviceModule,
  ShardedStreamsClient,
  type ModuleDeps,
} from '@dominoes/platform';
import type { TimerConfig } from './config';
import { DeadlineWorker } from './deadline-worker';
import { TimerMetrics } from './metrics';

export type TimerDeps = ModuleDeps<TimerConfig, TimerMetrics>;

/**
 * The timer-service: the deadline worker, and on its port only /health and /metrics.
 * /health/ready is 200 when Redis answers PING and the worker runs.
 */
@Module({})
export class TimerModule {
  static forRoot({ config, clock, logger, metrics }: TimerDeps): DynamicModule {
    return serviceModule(TimerModule, {
      metrics: metrics,
      providers: [
        {
          // The same transport the gateway uses; the timer only emits (no reply channel).
          provide: ShardedStreamsClient,
          useFactory: () =>
            ShardedStreamsClient.forService(config, {
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
              // Every group's queue (DEADLINE_GROUPS): each timer-service works all of them.
              createDeadlineQueues(config),
              clock,
              metrics,
              logger,
            ),
        },
      ],
      readiness: factory(
        [ShardedStreamsClient, DeadlineWorker],
        (client: ShardedStreamsClient, worker: DeadlineWorker) => [
          { name: 'redis', probe: () => client.ping() },
          { name: 'worker', probe: () => worker.running, up: 'running', down: 'stopped' },
        ],
      ),
      // The port closes first on shutdown, then the worker finishes the jobs in hand.
      lifecycle: factory([DeadlineWorker], (worker: DeadlineWorker) => ({
        start: [() => worker.start()],
        close: [() => worker.close(), () => logger.debug('timer-service connections closed')],
      })),
    });
  }
}
