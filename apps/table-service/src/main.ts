import './tracing'; // first: starts OpenTelemetry before anything it traces is loaded
import 'reflect-metadata';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  checkPostgres,
  checkRedis,
  createDeadlineQueue,
  createLogger,
  createPrisma,
  createRedis,
  PinoNestLogger,
  shutdownTelemetry,
  systemClock,
  telemetryStatus,
} from '@dominoes/platform';
import { redisNames, shardOf } from '@dominoes/protocol';
import { HealthController, IntentsController, PRISMA, REDIS } from './app.controllers';
import { readConfig } from './config';
import { DeadlineKeeper } from './deadlines/deadline-keeper';
import { TableServiceMetrics } from './metrics';
import { StaleConnectionSweeper } from './presence/stale-connections';
import { Archiver } from './retention/archiver';
import { TableEngine, type DeadlineScheduler } from './table/table-engine';
import { RedisSeatPublisher } from './table/seat-publisher';
import { TableStore } from './table/table-store';
import type { TableState } from './table/table-state';
import { ShardedStreamsServer } from './transport/sharded-streams.server';

async function bootstrap(): Promise<void> {
  const config = readConfig();
  const logger = createLogger('table-service', config.logLevel);
  if (telemetryStatus().mode !== 'off') logger.info({ tracing: telemetryStatus() }, 'tracing on');
  const problems = (
    await Promise.all([checkPostgres(config.databaseUrl), checkRedis(config.redisUrl)])
  ).filter(Boolean);
  if (problems.length > 0) {
    for (const problem of problems) console.error(problem);
    process.exit(1);
  }
  const prisma = createPrisma(config.databaseUrl, config.databasePoolSize);
  // Auto-pipelining: the commands of many intents issued in one tick (views, replies, acks, leases) go
  // out in one write instead of one write each (docs/performance.md).
  const redis = createRedis(config.redisUrl, 'table-service', { enableAutoPipelining: true });
  const names = redisNames(config.redisPrefix);
  const queue = createDeadlineQueue(config.redisUrl, config.redisPrefix);
  const store = new TableStore(prisma);
  const deadlines: DeadlineScheduler = { schedule: (...args) => keeper.schedule(...args) };
  let server: ShardedStreamsServer | null = null;
  const metrics: TableServiceMetrics = new TableServiceMetrics(
    (): Iterable<TableState> => engine.cachedTables(),
    () => server?.ownedShards().size ?? 0,
  );
  const engine: TableEngine = new TableEngine({
    store,
    publisher: new RedisSeatPublisher(redis, names),
    clock: systemClock,
    durations: config.durations,
    deadlines,
    logger,
    metrics,
    limits: config.tableLimits,
  });
  const keeper = new DeadlineKeeper(
    queue,
    config.tableShards,
    store,
    engine,
    systemClock,
    logger,
    config.overdueGraceMs,
    (tableId) => server?.ownedShards().has(shardOf(tableId, config.tableShards)) ?? false,
  );
  server = new ShardedStreamsServer({
    redis,
    names,
    shards: config.tableShards,
    replicaId: config.replicaId,
    logger,
    onShardAcquired: (shard) => keeper.shardAcquired(shard),
    onShardLost: (shard) => engine.forget((tableId) => shardOf(tableId, config.tableShards) === shard),
  });
  const archiver = new Archiver({
    store,
    forget: (ids) => engine.forget((tableId) => ids.has(tableId)),
    clock: systemClock,
    logger,
    afterMs: config.archive.afterMs,
    intervalMs: config.archive.intervalMs,
  });
  const staleConnections = new StaleConnectionSweeper({
    engine,
    redis,
    names,
    clock: systemClock,
    logger,
    owns: (tableId) => server?.ownedShards().has(shardOf(tableId, config.tableShards)) ?? false,
    graceMs: config.gatewayGoneGraceMs,
    intervalMs: config.presenceSweepMs,
  });

  @Module({})
  class AppModule {
    static register(): DynamicModule {
      return {
        module: AppModule,
        controllers: [IntentsController, HealthController],
        providers: [
          { provide: TableEngine, useValue: engine },
          { provide: TableServiceMetrics, useValue: metrics },
          { provide: PRISMA, useValue: prisma },
          { provide: REDIS, useValue: redis },
        ],
      };
    }
  }

  const app = await NestFactory.create(AppModule.register(), { logger: new PinoNestLogger(logger) });
  app.connectMicroservice({ strategy: server });
  await app.startAllMicroservices();
  await app.listen(config.port, '0.0.0.0');
  keeper.startSweep();
  staleConnections.start();
  archiver.start();
  logger.info(
    {
      port: config.port,
      replicaId: config.replicaId,
      shards: config.tableShards,
      durations: config.durations,
      presenceSweepMs: config.presenceSweepMs,
      gatewayGoneGraceMs: config.gatewayGoneGraceMs,
      tableLimits: config.tableLimits,
    },
    'table-service ready',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'table-service stopping: finishing the intents in hand, giving shards back');
    keeper.stop();
    await staleConnections.stop();
    await archiver.stop();
    await app.close();
    await queue.close();
    await prisma.$disconnect();
    redis.disconnect();
    await shutdownTelemetry();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

void bootstrap();
