import { Module, type DynamicModule } from '@nestjs/common';
import {
  factory,
  serviceModule,
  upsertDeadline,
  onCluster,
  publishOn,
  type ModuleDeps,
  type Clock,
  type DeadlineQueues,
  type RedisClient,
  type ShardDatabases,
} from '@dominoes/platform';
import type { RedisNames } from '@dominoes/protocol';
import { IntentsController } from './app.controllers';
import type { TableServiceConfig } from './config';
import { DeadlineKeeper } from './deadlines/deadline-keeper';
import { TableServiceMetrics } from './metrics';
import { StaleConnectionSweeper } from './presence/stale-connections';
import { Archiver } from './retention/archiver';
import { OwnedShards } from './shards/owned-shards';
import { DATABASES, DEADLINE_QUEUE, REDIS, REDIS_NAMES, StoresModule } from './stores.module';
import { TableEngine, type DeadlineScheduler } from './table/table-engine';
import { RedisSeatPublisher } from './table/seat-publisher';
import { RedisLobbyPublisher } from './table/lobby-feed';
import { TableSpectators } from './spectators/table-spectators';
import { TableWatchers } from './spectators/table-watchers';
import { StaleWatcherSweeper } from './spectators/stale-watchers';
import { TableStore } from './table/table-store';
import { ShardedStreamsServer } from './transport/sharded-streams.server';

export type TableServiceDeps = ModuleDeps<TableServiceConfig, TableServiceMetrics>;

/** The engine sets each table's one deadline job (the keeper sets them again when a shard is taken). */
const deadlineJobs = (queues: DeadlineQueues, clock: Clock): DeadlineScheduler => ({
  schedule: async (tableId, deadline, traceparent) => {
    const job = {
      tableId,
      key: deadline.key,
      dueAt: deadline.at,
      ...(traceparent ? { traceparent } : {}),
    };
    await upsertDeadline(queues.of(tableId), job, deadline.at - clock.now());
  },
});

/**
 * The table-service: the shard transport feeds IntentsController, which runs the engine; the keeper,
 * the presence sweep and the archiver run beside it. Every provider is built from the ones before it
 * (no forward reference): who owns which shard is OwnedShards, which the transport keeps up to date.
 */
@Module({})
export class TableServiceModule {
  static forRoot(deps: TableServiceDeps): DynamicModule {
    const { config, clock, logger, metrics } = deps;
    const shards = config.tableShards;
    return serviceModule(TableServiceModule, {
      imports: [StoresModule.forRoot(config)],
      controllers: [IntentsController],
      metrics,
      providers: [
        { provide: OwnedShards, useFactory: () => new OwnedShards(shards) },
        {
          provide: TableStore,
          inject: [DATABASES],
          useFactory: (databases: ShardDatabases) => new TableStore(databases),
        },
        {
          provide: TableSpectators,
          inject: [REDIS, REDIS_NAMES],
          useFactory: (redis: RedisClient, names: RedisNames) =>
            new TableSpectators(
              new TableWatchers(redis, names, shards),
              (channel, message) => publishOn(redis, onCluster(redis), channel, message),
              names,
              new RedisSeatPublisher(redis, names),
              logger,
            ),
        },
        {
          provide: TableEngine,
          inject: [TableStore, REDIS, REDIS_NAMES, DEADLINE_QUEUE, TableSpectators],
          useFactory: (
            store: TableStore,
            redis: RedisClient,
            names: RedisNames,
            queue: DeadlineQueues,
            spectators: TableSpectators,
          ) => {
            const engine = new TableEngine({
              store,
              publisher: new RedisSeatPublisher(redis, names),
              lobby: new RedisLobbyPublisher(redis, names),
              clock,
              durations: config.durations,
              deadlines: deadlineJobs(queue, clock),
              logger,
              metrics,
              limits: config.tableLimits,
              spectators,
            });
            spectators.attach(engine);
            return engine;
          },
        },
        {
          provide: DeadlineKeeper,
          inject: [DEADLINE_QUEUE, TableStore, TableEngine, OwnedShards],
          useFactory: (queue: DeadlineQueues, store: TableStore, engine: TableEngine, owned: OwnedShards) =>
            new DeadlineKeeper(queue, shards, store, engine, clock, logger, config.overdueGraceMs, (id) =>
              owned.owns(id),
            ),
        },
        {
          provide: ShardedStreamsServer,
          inject: [REDIS, REDIS_NAMES, DeadlineKeeper, TableEngine, OwnedShards, TableSpectators],
          useFactory: (
            redis: RedisClient,
            names: RedisNames,
            keeper: DeadlineKeeper,
            engine: TableEngine,
            owned: OwnedShards,
            spectators: TableSpectators,
          ) =>
            new ShardedStreamsServer({
              redis,
              names,
              shards,
              replicaId: config.replicaId,
              logger,
              onShardAcquired: (shard) => {
                owned.acquired(shard);
                keeper.shardAcquired(shard);
                spectators.registry
                  .shardAcquired(shard)
                  .catch((error: unknown) =>
                    logger.warn({ err: error, shard }, 'the watchers of a shard were not read back'),
                  );
              },
              onShardLost: (shard) => {
                owned.lost(shard);
                engine.forget(OwnedShards.tablesOf(shard, shards));
                spectators.registry.shardLost(shard);
              },
            }),
        },
        {
          provide: Archiver,
          inject: [TableStore, TableEngine],
          useFactory: (store: TableStore, engine: TableEngine) =>
            new Archiver({
              store,
              forget: (ids) => engine.forget((tableId) => ids.has(tableId)),
              clock,
              logger,
              afterMs: config.archive.afterMs,
              intervalMs: config.archive.intervalMs,
            }),
        },
        {
          provide: StaleConnectionSweeper,
          inject: [TableEngine, REDIS, REDIS_NAMES, OwnedShards],
          useFactory: (engine: TableEngine, redis: RedisClient, names: RedisNames, owned: OwnedShards) =>
            new StaleConnectionSweeper({
              engine,
              redis,
              names,
              clock,
              logger,
              owns: (tableId) => owned.owns(tableId),
              graceMs: config.gatewayGoneGraceMs,
              intervalMs: config.presenceSweepMs,
            }),
        },
        {
          provide: StaleWatcherSweeper,
          inject: [TableSpectators, REDIS, REDIS_NAMES],
          useFactory: (spectators: TableSpectators, redis: RedisClient, names: RedisNames) =>
            new StaleWatcherSweeper({
              spectators,
              redis,
              names,
              clock,
              logger,
              graceMs: config.gatewayGoneGraceMs,
              intervalMs: config.presenceSweepMs,
            }),
        },
      ],
      // Ready only while every Postgres database and Redis answer (within 2 s each).
      readiness: factory([DATABASES, REDIS], (databases: ShardDatabases, redis: RedisClient) => [
        {
          name: 'postgres',
          probe: () => databases.each((prisma) => prisma.$queryRawUnsafe('select 1')).then(() => true),
          up: 'up',
        },
        {
          name: 'redis',
          probe: () => redis.ping().then(() => true),
          up: 'up',
        },
      ]),
      // Shutdown: the sweeps stop, then HTTP and the transport close (the intents in hand finish,
      // the shards are given back), then the queue, Postgres and Redis.
      lifecycle: factory(
        [
          DeadlineKeeper,
          StaleConnectionSweeper,
          StaleWatcherSweeper,
          Archiver,
          TableEngine,
          OwnedShards,
          DEADLINE_QUEUE,
          DATABASES,
          REDIS,
        ],
        (
          keeper: DeadlineKeeper,
          staleConnections: StaleConnectionSweeper,
          staleWatchers: StaleWatcherSweeper,
          archiver: Archiver,
          engine: TableEngine,
          owned: OwnedShards,
          queue: DeadlineQueues,
          databases: ShardDatabases,
          redis: RedisClient,
        ) => ({
          connect: [
            () =>
              metrics.watch(
                () => engine.cachedTables(),
                () => owned.size,
              ),
          ],
          start: [
            () => keeper.startSweep(),
            () => staleConnections.start(),
            () => staleWatchers.start(),
            () => archiver.start(),
          ],
          stop: [
            () => keeper.stop(),
            () => staleConnections.stop(),
            () => staleWatchers.stop(),
            () => archiver.stop(),
          ],
          close: [() => queue.close(), () => databases.disconnect(), () => redis.disconnect()],
        }),
      ),
    });
  }
}
