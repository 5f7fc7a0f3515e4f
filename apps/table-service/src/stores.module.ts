import { Module, type DynamicModule } from '@nestjs/common';
import { createDeadlineQueues, createPrisma, createRedis, ShardDatabases } from '@dominoes/platform';
import { redisNames } from '@dominoes/protocol';
import type { TableServiceConfig } from './config';

/** Nest injection tokens of the table-service's connections. */
/** The ShardDatabases: one pool per database of the shard map (decision 0027). */
export const DATABASES = Symbol('DATABASES');
export const REDIS = Symbol('REDIS');
export const REDIS_NAMES = Symbol('REDIS_NAMES');
export const DEADLINE_QUEUE = Symbol('DEADLINE_QUEUE');

/** The table-service's connections to Postgres and Redis (closed by TableServiceModule, last). */
@Module({})
export class StoresModule {
  static forRoot(config: TableServiceConfig): DynamicModule {
    const providers = [
      // One pool of DATABASE_POOL_SIZE per database: a table is read and written in its shard's.
      {
        provide: DATABASES,
        useFactory: () =>
          new ShardDatabases(config.shardMap, (url) => createPrisma(url, config.databasePoolSize)),
      },
      // The commands of many intents issued in one tick (views, replies, acks, leases) go out in one
      // write instead of one write each (decision 0033, docs/performance.md).
      {
        provide: REDIS,
        useFactory: () => createRedis(config, 'table-service', { writesTogether: 'tick' }),
      },
      { provide: REDIS_NAMES, useValue: redisNames(config.redisPrefix, config.tableShards) },
      // One BullMQ queue per shard group (DEADLINE_GROUPS).
      { provide: DEADLINE_QUEUE, useFactory: () => createDeadlineQueues(config) },
    ];
    return { module: StoresModule, providers, exports: providers.map((p) => p.provide) };
  }
}
