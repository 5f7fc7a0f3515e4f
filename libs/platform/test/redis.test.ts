import { createServer } from 'node:net';
import { createDeadlineQueue, upsertDeadline } from '../src/deadlines';
import { TestRedisServer } from '../../../e2e/src/redis-server';
import { createRedis, type RedisConnectionReporter } from '../src/redis';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port nothing listens on: a Redis that is down. */
async function deadPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('Redis connections while Redis is down', () => {
  it('a connection reports the outage once (not every reconnect attempt) and throws nothing', async () => {
    const lines: string[] = [];
    const reporter: RedisConnectionReporter = {
      warn: (_fields, message) => lines.push(message),
      info: (_fields, message) => lines.push(message),
    };
    const redis = createRedis(`redis://127.0.0.1:${await deadPort()}`, 'down-test', {}, reporter);
    await sleep(800); // reconnect attempts at 100, 300, 600 ms
    redis.disconnect();
    expect(lines).toEqual(['redis connection lost; reconnecting']);
  });

  it('while Redis is away setting a deadline fails after a few attempts instead of waiting forever; once it is back (empty) it works again', async () => {
    const redis = await TestRedisServer.start('platform-redis-down');
    const queue = createDeadlineQueue(redis.url, 'test_down');
    try {
      const job = (key: string) => ({ tableId: 'K7M2QX', key, dueAt: Date.now() + 60_000 });
      await upsertDeadline(queue, job('k1'), 60_000);
      await redis.kill();
      const started = Date.now();
      await expect(upsertDeadline(queue, job('k2'), 60_000)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(5000);
      await redis.restart();
      await expect(upsertDeadline(queue, job('k3'), 60_000)).resolves.toMatchObject({ outcome: 'added' });
      expect(await queue.getDelayedCount()).toBe(1);
    } finally {
      await queue.close();
      await redis.stop();
    }
  });
});

/** Counts the writes a connection's current socket makes from now on (`_write` and `_writev` calls). */
function countWrites(socket: object): () => number {
  let writes = 0;
  const s = socket as { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void };
  for (const method of ['_write', '_writev'] as const) {
    const original = s[method].bind(socket);
    s[method] = (...args: unknown[]) => {
      writes += 1;
      original(...args);
    };
  }
  return () => writes;
}

describe('writesTogether (decision 0033)', () => {
  it("a tick's commands leave the socket in one write, each with its own reply, also on the socket of a reconnect", async () => {
    const server = await TestRedisServer.start('platform-tick-writes');
    const redis = createRedis(server.url, 'tick-writes-test', { writesTogether: 'tick' });
    try {
      await redis.ping();
      let writes = countWrites(redis.stream);
      const sums = await Promise.all(Array.from({ length: 20 }, (_, i) => redis.incrby('n', i)));
      expect(sums).toEqual(Array.from({ length: 20 }, (_, i) => (i * (i + 1)) / 2));
      expect(writes()).toBe(1);

      const ready = new Promise((resolve) => redis.once('ready', resolve));
      redis.stream.destroy();
      await ready;
      writes = countWrites(redis.stream);
      expect(await Promise.all([redis.set('a', '1'), redis.get('a'), redis.del('a')])).toEqual([
        'OK',
        '1',
        1,
      ]);
      expect(writes()).toBe(1);
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });
});
