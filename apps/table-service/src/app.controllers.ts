import { Controller, Get, Header, HttpException, HttpStatus, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { IntentEnvelope, IntentReply } from '@dominoes/protocol';
import type { PrismaClient, Redis } from '@dominoes/platform';
import { INTENT_PATTERN } from './transport/sharded-streams.server';
import { TableEngine } from './table/table-engine';
import { TableServiceMetrics } from './metrics';

/** A check that has not answered within `ms` counts as down (a dead host can hold a connect for minutes). */
const within = <T>(ms: number, promise: Promise<T>, fallback: T): Promise<T> =>
  Promise.race([promise, new Promise<T>((resolve) => setTimeout(() => resolve(fallback), ms).unref())]);

export const PRISMA = Symbol('PRISMA');
export const REDIS = Symbol('REDIS');

@Controller()
export class IntentsController {
  constructor(@Inject(TableEngine) private readonly engine: TableEngine) {}

  /** Every intent of the tables in this replica's shards arrives here, already checked by the transport. */
  @MessagePattern(INTENT_PATTERN)
  handle(@Payload() envelope: IntentEnvelope): Promise<IntentReply> {
    return this.engine.handle(envelope);
  }
}

@Controller()
export class HealthController {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(TableServiceMetrics) private readonly metrics: TableServiceMetrics,
  ) {}

  @Get('health/live')
  live(): { status: string } {
    return { status: 'ok' };
  }

  /** Ready only while Postgres and Redis both answer (within 2 s each). */
  @Get('health/ready')
  async ready(): Promise<{ status: string; postgres: string; redis: string }> {
    const [postgres, redis] = await Promise.all([
      within(
        2000,
        this.prisma.$queryRawUnsafe('select 1').then(
          () => 'up',
          () => 'down',
        ),
        'down',
      ),
      within(
        2000,
        this.redis.ping().then(
          () => 'up',
          () => 'down',
        ),
        'down',
      ),
    ]);
    const body = { status: postgres === 'up' && redis === 'up' ? 'ok' : 'unavailable', postgres, redis };
    if (body.status !== 'ok') throw new HttpException(body, HttpStatus.SERVICE_UNAVAILABLE);
    return body;
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4')
  metricsText(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
