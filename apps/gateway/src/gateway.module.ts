import { Module, type DynamicModule } from '@nestjs/common';
import {
  createRedis,
  factory,
  serviceModule,
  ShardedStreamsClient,
  type ModuleDeps,
} from '@dominoes/platform';
import { redisNames } from '@dominoes/protocol';
import type { GatewayConfig } from './config';
import { CLOCK, GATEWAY_CONFIG, LOGGER } from './di';
import { ChatRate } from './chat/chat-rate';
import { ChatRelay } from './chat/chat-relay';
import { RateLimiter } from './edge/rate-limiter';
import { ApiController } from './http/api.controller';
import { WebController } from './http/health.controller';
import { HistoryController } from './http/history.controller';
import { HttpLimits } from './http/http-limits';
import { INTENTS_CLIENT, IntentService } from './intents/intent.service';
import { GatewayMetrics } from './metrics';
import { MatchHistory } from './tables/match-history';
import { TableReader } from './tables/table-reader';
import { LobbyHub, type OpenForSocket } from './lobby/lobby-hub';
import { LobbyReader } from './lobby/lobby-reader';
import { QuickPlay } from './lobby/quick-play';
import { TableOpener } from './lobby/table-opener';
import { GatewayHeartbeat } from './ws/gateway-heartbeat';
import { SeatRouter } from './ws/seat-router';
import { PlayerSockets } from './ws/player-sockets';
import { SocketHub } from './ws/socket-hub';
import { SocketsGateway } from './ws/sockets.gateway';

export type GatewayDeps = ModuleDeps<GatewayConfig, GatewayMetrics>;

@Module({})
export class GatewayModule {
  static forRoot(deps: GatewayDeps): DynamicModule {
    const { config } = deps;
    const names = redisNames(config.redisPrefix, config.tableShards);
    return serviceModule(GatewayModule, {
      controllers: [ApiController, HistoryController, WebController],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: CLOCK, useValue: deps.clock },
        { provide: LOGGER, useValue: deps.logger },
        { provide: GatewayMetrics, useValue: deps.metrics },
        {
          // The intent transport: XADD to the table's shard stream, replies on this gateway's channel.
          provide: INTENTS_CLIENT,
          useFactory: () =>
            ShardedStreamsClient.forService(config, {
              replyChannel: names.replyChannel(config.gatewayId),
              replyTimeoutMs: config.replyTimeoutMs,
              intentExpiryMs: config.intentExpiryMs,
              connectionName: `gateway:${config.gatewayId}`,
            }),
        },
        IntentService,
        { provide: LobbyReader, useFactory: () => new LobbyReader(config.shardMap, deps.logger) },
        {
          // Listens on the lobby channel before the port opens, and takes the sockets' lobby frames.
          provide: LobbyHub,
          inject: [SeatRouter, LobbyReader, SocketHub, QuickPlay, TableOpener, HttpLimits],
          useFactory: async (
            router: SeatRouter,
            reader: LobbyReader,
            hub: SocketHub,
            quick: QuickPlay,
            opener: TableOpener,
            limits: HttpLimits,
          ) => {
            // A socket's quick play opens a table as POST /api/tables does: the socket's address's limit.
            const openFor: OpenForSocket = (conn, player) => async (config) => {
              await limits.take('table', conn.remote);
              return opener.open(player, config, conn.id);
            };
            const lobby = new LobbyHub(router, names, reader, deps.clock, deps.logger, quick, openFor);
            await lobby.start();
            hub.attachLobby(lobby);
            return lobby;
          },
        },
        {
          provide: TableOpener,
          inject: [IntentService],
          useFactory: (intents: IntentService) =>
            new TableOpener(intents, deps.clock, deps.logger, config.publicUrl),
        },
        {
          provide: QuickPlay,
          inject: [IntentService, LobbyReader],
          useFactory: (intents: IntentService, reader: LobbyReader) =>
            new QuickPlay(intents, reader, deps.clock, deps.logger),
        },
        {
          provide: TableReader,
          useFactory: () => new TableReader(config.shardMap),
        },
        {
          provide: MatchHistory,
          inject: [TableReader],
          useFactory: (reader: TableReader) => new MatchHistory(reader.history),
        },
        {
          // The HTTP API's per-address limits, counted in Redis so that every replica shares them.
          // No offline queue and one try: a Redis that is down answers at once, and the request goes
          // through (fail open, decision 0008) instead of waiting.
          provide: HttpLimits,
          useFactory: () =>
            new HttpLimits(
              new RateLimiter({
                redis: createRedis(config, `gateway:${config.gatewayId}:limits`, {
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
              createRedis(config, `gateway:${config.gatewayId}:views`, {
                sharded: true,
              }),
              names,
              deps.clock,
              deps.metrics,
              deps.logger,
            ),
        },
        {
          // The tables' chat (decision 0020): beside the game, never through the table-service.
          provide: ChatRelay,
          inject: [TableReader],
          useFactory: (tables: TableReader) => {
            const redis = createRedis(config, `gateway:${config.gatewayId}:chat`);
            return new ChatRelay({
              redis,
              // Classic pub/sub: on a cluster a table's chat reaches every node's subscribers.
              subscriber: createRedis(config, `gateway:${config.gatewayId}:chat-sub`, { sharded: true }),
              names,
              rate: new ChatRate(redis, names, config.chatRate),
              chatEnabled: (tableId) => tables.chatEnabled(tableId),
              seatHeld: (tableId, seat, playerId, connectionId) =>
                tables.seatHeld(tableId, seat, playerId, connectionId),
              clock: deps.clock,
              logger: deps.logger,
            });
          },
        },
        {
          provide: SocketHub,
          inject: [IntentService, SeatRouter, ChatRelay],
          useFactory: async (intents: IntentService, router: SeatRouter, chat: ChatRelay) => {
            // WS_MAX_SOCKETS_PER_PLAYER counts the player's sockets on every gateway, in Redis.
            const everywhere = new PlayerSockets(
              createRedis(config, `gateway:${config.gatewayId}:sockets`),
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
              chat,
            );
            await everywhere.start((connectionId) => hub.evictSocket(connectionId));
            return hub;
          },
        },
        SocketsGateway,
        {
          // Alive before the port opens: the table-services judge this gateway's connection ids by it.
          provide: GatewayHeartbeat,
          inject: [SocketHub],
          useFactory: (hub: SocketHub) =>
            new GatewayHeartbeat({
              redis: createRedis(config, `gateway:${config.gatewayId}:heartbeat`, {
                maxRetriesPerRequest: 1,
              }),
              key: names.gatewayAlive(config.gatewayId),
              epoch: hub.epoch,
              intervalMs: config.heartbeatMs,
              ttlMs: config.heartbeatTtlMs,
              logger: deps.logger,
            }),
        },
      ],
      // 200 only when Redis answers PING and Postgres `select 1`; 503 says which one failed.
      readiness: factory([IntentService, TableReader], (intents: IntentService, tables: TableReader) => [
        { name: 'redis', probe: () => intents.ping() },
        { name: 'postgres', probe: () => tables.pingDatabase(0) },
        // Split by shard (decision 0027): another database down pauses its shards' tables only, so
        // it is named in the body (postgres_1, ...) but keeps the gateway in its Service.
        ...Array.from({ length: tables.databaseCount - 1 }, (_, k) => ({
          name: `postgres_${k + 1}`,
          probe: () => tables.pingDatabase(k + 1),
          required: false,
        })),
      ]),
      lifecycle: factory(
        [IntentService, SeatRouter, TableReader, HttpLimits, SocketHub, GatewayHeartbeat, ChatRelay],
        (
          intents: IntentService,
          router: SeatRouter,
          tables: TableReader,
          limits: HttpLimits,
          hub: SocketHub,
          heartbeat: GatewayHeartbeat,
          chat: ChatRelay,
        ) => ({
          // The reply channel is subscribed before the first intent can be sent.
          connect: [() => Promise.all([intents.connect(), limits.ready()])],
          start: [() => heartbeat.start()],
          // Drains the sockets (reconnect + 1012); their presence notes are flushed, so nothing is
          // left for a sweep to do, and the heartbeat key is deleted. Then HTTP closes, then the stores.
          stop: [() => hub.drain(), () => heartbeat.stop()],
          close: [
            () =>
              Promise.all([intents.close(), router.close(), tables.close(), limits.close(), chat.close()]),
            () => deps.logger.debug('gateway connections closed'),
          ],
        }),
      ),
    });
  }
}
