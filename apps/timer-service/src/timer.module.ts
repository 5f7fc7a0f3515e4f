import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Inject,
  Module,
  type DynamicModule,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { createDeadlineQueue, ShardedStreamsClient, type Clock, type Logger } from '@dominoes/platform';
import type { TimerConfig } from './config';
import { DeadlineWorker } from './deadline-worker';
import { TimerMetrics } from './metrics';

export interface TimerDeps {
  readonly config: TimerConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: TimerMetrics;
}

export const TIMER_DEPS = Symbol('TIMER_DEPS');

/**
 * Health and metrics on a bare node:http server: the timer-service has no other HTTP to serve.
 * /health/ready is 200 when Redis answers PING and the worker runs.
 */
export class HealthServer {
  private server: Server | null = null;

  constructor(
    private readonly deps: TimerDeps,
    private readonly worker: DeadlineWorker,
    private readonly client: ShardedStreamsClient,
  ) {}

  listen(): Promise<number> {
    const { metrics } = this.deps;
    this.server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'GET')
        return json(405, { error: { code: 'INVALID_MESSAGE', message: 'GET only.' } });
      if (path === '/health/live') return json(200, { status: 'ok' });
      if (path === '/health/ready') {
        void this.client.ping().then((redis) => {
          const worker = this.worker.running;
          json(redis && worker ? 200 : 503, {
            status: redis && worker ? 'ok' : 'unavailable',
            redis: redis ? 'ok' : 'down',
            worker: worker ? 'running' : 'stopped',
          });
        });
        return;
      }
      if (path === '/metrics') {
        void metrics.registry.metrics().then((text) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(text);
        });
        return;
      }
      json(404, { error: { code: 'INVALID_MESSAGE', message: 'There is no such route.' } });
    });
    return new Promise((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.deps.config.port, this.deps.config.host, () =>
        resolve((this.server!.address() as AddressInfo).port),
      );
    });
  }

  close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return Promise.resolve();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  }
}

@Module({})
export class TimerModule implements OnApplicationBootstrap, OnApplicationShutdown {
  port = 0;

  constructor(
    @Inject(TIMER_DEPS) private readonly deps: TimerDeps,
    @Inject(DeadlineWorker) private readonly worker: DeadlineWorker,
    @Inject(HealthServer) private readonly health: HealthServer,
  ) {}

  static forRoot(deps: TimerDeps): DynamicModule {
    const { config } = deps;
    return {
      module: TimerModule,
      providers: [
        { provide: TIMER_DEPS, useValue: deps },
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
          provide: HealthServer,
          inject: [DeadlineWorker, ShardedStreamsClient],
          useFactory: (worker: DeadlineWorker, client: ShardedStreamsClient) =>
            new HealthServer(deps, worker, client),
        },
      ],
    };
  }

  async onApplicationBootstrap(): Promise<void> {
    this.worker.start();
    this.port = await this.health.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.health.close();
    await this.worker.close();
    this.deps.logger.debug('timer-service connections closed');
  }
}
