import { randomBytes } from 'node:crypto';
import { createRedis, type Redis } from '@dominoes/platform';
import {
  INTENT_FIELD,
  INTENT_PATTERN,
  redisNames,
  type IntentEnvelope,
  type IntentReply,
} from '@dominoes/protocol';
import type { ShardedStreamsServer } from '../src/transport/sharded-streams.server';
import { WriteOutcomeUnknownError } from '../src/table/table-ports';
import { appliedReply, dropPrefix, quietTransport } from './support/shard-transport';
import { sleep, until } from './support/until';

/*
 * What Redis can lose under the table-service's feet (a restart without its data, a dropped
 * connection), done to the shared Redis one key at a time under a prefix of this suite's own.
 */

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('the shard consumer and its leases when Redis loses things', () => {
  const prefix = `test_redisloss_${randomBytes(4).toString('hex')}`;
  const names = redisNames(prefix);
  const stream = names.intentStream(0);
  let redis: Redis;
  let admin: Redis;
  let server: ShardedStreamsServer;
  const handled: string[] = [];
  const acquired: number[] = [];
  const lost: number[] = [];
  /** The next replies to publish fail this many times (the connection "drops" mid-answer). */
  let failPublishes = 0;
  /** Acks issued with a reply that failed: they fail too. */
  let failAcks = 0;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  let n = 0;

  const envelope = (replyTo: string | null = null): IntentEnvelope => ({
    intentId: `i${++n}`,
    tableId: 'K7M2QX',
    player: null,
    connectionId: null,
    replyTo,
    sentAt: Date.now(),
    intent: { kind: 'deadline', key: `k${n}`, dueAt: Date.now() },
  });
  const send = (e: IntentEnvelope) => admin.xadd(stream, '*', INTENT_FIELD, JSON.stringify(e));
  /** Intents whose first handling fails with an unknown write outcome (Postgres killed after its commit). */
  const outcomeUnknownOnce = new Set<string>();

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    redis = createRedis(REDIS_URL, `${prefix}:table-service`);
    admin = createRedis(REDIS_URL, `${prefix}:admin`);
    // The server's own connection, but a reply publish can be made to fail.
    const flaky = new Proxy(redis, {
      get(target, key, receiver) {
        // The answer's reply and ack go out together: the drop fails both.
        if (key === 'publish')
          return (channel: string, message: string) => {
            if (failPublishes-- <= 0) return target.publish(channel, message);
            failAcks++;
            return Promise.reject(new Error('Connection is closed.'));
          };
        if (key === 'xack')
          return (...args: Parameters<Redis['xack']>) => {
            if (failAcks <= 0) return target.xack(...args);
            failAcks--;
            return Promise.reject(new Error('Connection is closed.'));
          };
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    server = quietTransport('redis-loss-test', {
      redis: flaky,
      names,
      shards: 1,
      replicaId: 'replica-a',
      ttlMs: 1000,
      onShardAcquired: (shard) => acquired.push(shard),
      onShardLost: (shard) => lost.push(shard),
    });
    server.addHandler(INTENT_PATTERN, async (e: IntentEnvelope): Promise<IntentReply> => {
      handled.push(e.intentId);
      if (outcomeUnknownOnce.delete(e.intentId))
        throw new WriteOutcomeUnknownError(e.tableId, new Error('Connection terminated unexpectedly'));
      return appliedReply(e);
    });
    server.listen(() => undefined);
    await until('the shard lease', () => server.ownedShards().size === 1);
  });

  afterAll(async () => {
    await server?.close();
    await dropPrefix(prefix, admin, redis);
    process.off('unhandledRejection', onUnhandled);
  });

  it('reads intents from its shard stream', async () => {
    const e = envelope();
    await send(e);
    await until('the intent', () => handled.includes(e.intentId));
  });

  it('a stream and consumer group that vanished (NOGROUP) are made again, and reading goes on', async () => {
    await admin.del(stream);
    await sleep(100);
    // Added to a stream that now has no group: read from the start once the group is made again.
    const e = envelope();
    await send(e);
    await until('the intent after the stream was lost', () => handled.includes(e.intentId));
    expect(server.ownedShards().size).toBe(1);
  });

  it('an answer that fails (the reply could not be published) is no unhandled rejection: the intent is read again and answered', async () => {
    const replies = createRedis(REDIS_URL, `${prefix}:replies`);
    const got: string[] = [];
    replies.on('message', (_c: string, m: string) => got.push((JSON.parse(m) as IntentReply).intentId));
    await replies.subscribe(`${prefix}:replies`);
    try {
      failPublishes = 1;
      const e = envelope(`${prefix}:replies`);
      await send(e);
      await until('the reply', () => got.includes(e.intentId), 8000);
      expect(handled.filter((id) => id === e.intentId).length).toBe(2);
      expect(unhandled).toEqual([]);
      // Answered, hence acknowledged: nothing of this group is pending any more.
      let pending = -1;
      for (let i = 0; i < 50 && pending !== 0; i++) {
        pending = ((await admin.xpending(stream, 'table-service')) as [number])[0];
        if (pending !== 0) await sleep(20);
      }
      expect(pending).toBe(0);
    } finally {
      replies.disconnect();
    }
  });

  it('a write whose outcome is unknown (Postgres killed after its commit) is neither answered nor acknowledged: it stays pending, is read again after 10 s and answered then', async () => {
    const replies = createRedis(REDIS_URL, `${prefix}:replies-unknown`);
    const got: IntentReply[] = [];
    replies.on('message', (_c: string, m: string) => got.push(JSON.parse(m) as IntentReply));
    await replies.subscribe(`${prefix}:replies-unknown`);
    try {
      const e = envelope(`${prefix}:replies-unknown`);
      outcomeUnknownOnce.add(e.intentId);
      await send(e);
      await until('the first handling', () => handled.includes(e.intentId));
      await sleep(1000);
      // No "not applied" (INTERNAL) answer: it might have been stored.
      expect(got).toEqual([]);
      expect(((await admin.xpending(stream, 'table-service')) as [number])[0]).toBe(1);
      await until('the answer after the entry is read again', () => got.length > 0, 20_000);
      expect(got).toEqual([{ ok: true, intentId: e.intentId, version: 1, seat: null }]);
      expect(handled.filter((id) => id === e.intentId)).toHaveLength(2);
    } finally {
      replies.disconnect();
    }
  }, 40_000);

  it('a lease that vanished is taken again, and the owner is told (so it rebuilds the deadlines)', async () => {
    const before = acquired.length;
    await admin.del(names.shardLease(0));
    await until('the lease taken again', () => acquired.length > before);
    expect(lost.length).toBeGreaterThan(0);
    const e = envelope();
    await send(e);
    await until('the intent after the lease came back', () => handled.includes(e.intentId));
  });

  it('a dropped connection gives every shard up at once; they are taken again when Redis answers, and reading goes on', async () => {
    const lostBefore = lost.length;
    const acquiredBefore = acquired.length;
    const id = await redis.client('ID');
    await admin.client('KILL', 'ID', String(id));
    await until('the shard given up', () => lost.length > lostBefore);
    await until('the shard taken again', () => acquired.length > acquiredBefore);
    await admin.del(stream); // and, as after a restart, the stream is gone too
    const e = envelope();
    await send(e);
    await until('the intent after the reconnect', () => handled.includes(e.intentId));
    expect(unhandled).toEqual([]);
  });
});
