import { randomBytes } from 'node:crypto';
import { redisNames, shardOf } from '@dominoes/protocol';
import {
  createDeadlineQueue,
  createRedis,
  upsertDeadline,
  type DeadlineQueue,
  type Redis,
} from '@dominoes/platform';
import { TestRedisServer } from '../../../e2e/src/redis-server';
import type { TimerApp } from '../src/timer-app';
import { startTestTimer } from './support';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Kill -9 a Redis of its own under a running timer-service and start an empty one on the same port. */
describe('timer-service across a Redis restart', () => {
  const prefix = `test_timer_restart_${randomBytes(4).toString('hex')}`;
  const names = redisNames(prefix);
  let server: TestRedisServer;
  let timer: TimerApp;
  let queue: DeadlineQueue;
  let redis: Redis;

  const ready = async () => (await fetch(`http://127.0.0.1:${timer.port}/health/ready`)).status;
  /** Waits for the deadline intent of `key` to be in its table's shard stream. */
  async function dispatched(tableId: string, key: string, timeoutMs = 5000): Promise<boolean> {
    const started = Date.now();
    while (Date.now() - started < timeoutMs) {
      const entries = await redis.xrange(names.intentStream(shardOf(tableId, 4)), '-', '+').catch(() => []);
      if (entries.some(([, fields]) => fields[1]!.includes(`"deadline:${key}"`))) return true;
      await sleep(25);
    }
    return false;
  }

  beforeAll(async () => {
    server = await TestRedisServer.start('timer-redis-restart');
    redis = createRedis(server.url, 'timer-restart-test');
    queue = createDeadlineQueue(server.url, prefix);
    timer = await startTestTimer(server.url, prefix, 'timer-restart-test', { TABLE_SHARDS: '4' });
  }, 30_000);

  afterAll(async () => {
    await timer?.shutdown();
    await queue?.close();
    redis?.disconnect();
    await server?.stop();
  });

  it('fires deadlines before, reports not ready while Redis is away, and fires the deadlines set after it came back', async () => {
    await upsertDeadline(queue, { tableId: 'T7K2MQ', key: 'before', dueAt: Date.now() + 100 }, 100);
    expect(await dispatched('T7K2MQ', 'before')).toBe(true);

    await server.kill('SIGKILL');
    expect(await ready()).toBe(503);
    await sleep(1000);
    await server.restart();

    // The worker's connections come back by themselves; a deadline set now (as the table-service
    // sets them again from Postgres) fires.
    await upsertDeadline(queue, { tableId: 'T7K2MQ', key: 'after', dueAt: Date.now() + 100 }, 100);
    expect(await dispatched('T7K2MQ', 'after')).toBe(true);
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = await ready();
      if (status !== 200) await sleep(100);
    }
    expect(status).toBe(200);
    expect(timer.worker.running).toBe(true);
  });
});
