import {
  Inject,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { createRedis, ShardedStreamsClient, type Clock, type Logger } from '@dominoes/platform';
import { redisNames } from '@dominoes/protocol';
import type { GatewayConfig } from './config';
import { CLOCK, GATEWAY_CONFIG, LOGGER } from './di';
import { RateLimiter } from './edge/rate-limiter';
import { ApiController } from './http/api.controller';
import { HealthController, WebController } from './http/health.controller';
import { HttpLimits } from './http/http-limits';
import { INTENTS_CLIENT, IntentService } from './intents/intent.service';
import { GatewayMetrics } from './metrics';
import { TableReader } from './tables/table-reader';
import { SeatRouter } from './ws/seat-router';
import { PlayerSockets } from './ws/player-sockets';
import { SocketHub } from './ws/socket-hub';
import { SocketsGateway } from './ws/sockets.gateway';

export interface GatewayDeps {
  readonly config: GatewayConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: GatewayMetrics;
}

@Module({})
export class GatewayModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(IntentService) private readonly intents: IntentService,
    @Inject(SeatRouter) private readonly router: SeatRouter,
    @Inject(TableReader) private readonly tables: TableReader,
    @Inject(HttpLimits) private readonly limits: HttpLimits,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  static forRoot(deps: GatewayDeps): DynamicModule {
    const { config } = deps;
    const names = redisNames(config.redisPrefix);
    return {
      module: GatewayModule,
      controllers: [ApiController, HealthController, WebController],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: CLOCK, useValue: deps.clock },
        { provide: LOGGER, useValue: deps.logger },
        { provide: GatewayMetrics, useValue: deps.metrics },
        {
          // The intent transport: XADD to the table's shard stream, replies on this gateway's channel.
          provide: INTENTS_CLIENT,
          useFactory: () =>
            new ShardedStreamsClient({
              redisUrl: config.redisUrl,
              prefix: config.redisPrefix,
              shards: config.tableShards,
              replyChannel: names.replyChannel(config.gatewayId),
              replyTimeoutMs: config.replyTimeoutMs,
              intentExpiryMs: config.intentExpiryMs,
              connectionName: `gateway:${config.gatewayId}`,
            }),
        },
        IntentService,
        { provide: TableReader, useFactory: () => new TableReader(config.databaseUrl) },
        {
          // The HTTP API's per-address limits, counted in Redis so that every replica shares them.
          // No offline queue and one try: a Redis that is down answers at once, and the request goes
          // through (fail open, decision 0008) instead of waiting.
          provide: HttpLimits,
          useFactory: () =>
            new HttpLimits(
              new RateLimiter({
                redis: createRedis(config.redisUrl, `gateway:${config.gatewayId}:limits`, {
                  maxRetriesPerRequest: 1,
                  enableOfflineQueue: false,
                }),
                prefix: config.redisPrefix,
                limits: config.httpLimits,
                logger: deps.logger,
              }),
              config.trustedProxies,
              deps.metrics,
            ),
        },
        {
          provide: SeatRouter,
          useFactory: () =>
            new SeatRouter(
              createRedis(config.redisUrl, `gateway:${config.gatewayId}:views`),
              names,
              deps.clock,
              deps.metrics,
              deps.logger,
            ),
        },
        {
          provide: SocketHub,
          inject: [IntentService, SeatRouter],
          useFactory: async (intents: IntentService, router: SeatRouter) => {
            // WS_MAX_SOCKETS_PER_PLAYER counts the player's sockets on every gateway, in Redis.
            const everywhere = new PlayerSockets(
              createRedis(config.redisUrl, `gateway:${config.gatewayId}:sockets`),
              router,
              names,
              config.gatewayId,
              config.maxSocketsPerPlayer,
              deps.logger,
            );
            const hub = new SocketHub(
              config,
              intents,
              router,
              deps.clock,
              deps.metrics,
              deps.logger,
              everywhere,
            );
            await everywhere.start((connectionId) => hub.evictSocket(connectionId));
            return hub;
          },
        },
        SocketsGateway,
      ],
    };
  }

  /** The reply channel is subscribed before the first intent can be sent. */
  async onModuleInit(): Promise<void> {
    await Promise.all([this.intents.connect(), this.limits.ready()]);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.intents.close(), this.router.close(), this.tables.close(), this.limits.close()]);
    this.logger.debug('gateway connections closed');
  }
}
