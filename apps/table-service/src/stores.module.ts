import { Module, type DynamicModule } from '@nestjs/common';
import { createDeadlineQueue, createPrisma, createRedis } from '@dominoes/platform';
import { redisNames } from '@dominoes/protocol';
import type { TableServiceConfig } from './config';

/** Nest injection tokens of the table-service's connections. */
export const PRISMA = Symbol('PRISMA');
export const REDIS = Symbol('REDIS');
export const REDIS_NAMES = Symbol('REDIS_NAMES');
export const DEADLINE_QUEUE = Symbol('DEADLINE_QUEUE');

/** The table-service's connections to Postgres and Redis (closed by TableServiceModule, last). */
@Module({})
export class StoresModule {
  static forRoot(config: TableServiceConfig): DynamicModule {
    const providers = [
      { provide: PRISMA, useFactory: () => createPrisma(config.databaseUrl, config.databasePoolSize) },
      // Auto-pipelining: the commands of many intents issued in one tick (views, replies, acks, leases)
      // go out in one write instead of one write each (docs/performance.md).
      {
        provide: REDIS,
        useFactory: () => createRedis(config.redisUrl, 'table-service', { enableAutoPipelining: true }),
      },
      { provide: REDIS_NAMES, useValue: redisNames(config.redisPrefix) },
      { provide: DEADLINE_QUEUE, useFactory: () => createDeadlineQueue(config.redisUrl, config.redisPrefix) },
    ];
    return { module: StoresModule, providers, exports: providers.map((p) => p.provide) };
  }
}
