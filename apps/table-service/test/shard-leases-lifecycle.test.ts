import { randomBytes } from 'node:crypto';
import { createRedis, type Redis } from '@dominoes/platform';
import { redisNames, type RedisNames } from '@dominoes/protocol';
import type { ShardLeases } from '../src/shards/shard-leases';
import { recordingLeases } from './support/recording-leases';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TTL_MS = 400;
const TICK_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The lease keeper's own life on real Redis (the mutation run's survivors in shard-leases.ts,
 * docs/testing.md): a stopped replica ticks no more, two ticks never run at once, a lease is trusted
 * up to the instant its TTL ends and not at it, and a tick whose Redis command fails gives every
 * lease up without throwing.
 */
describe('shard leases: stopping, overlapping ticks, the TTL boundary and a failing command (real Redis)', () => {
  let names: RedisNames;
  let redis: Redis;
  let events: string[];
  const made: ShardLeases[] = [];

  const replica = (id: string, shards: number) => {
    const leases = recordingLeases(redis, names, shards, id, (e) => events.push(e), {
      ttlMs: TTL_MS,
      tickMs: TICK_MS,
    });
    made.push(leases);
    return leases;
  };
  const live = () => redis.zrange(names.replicaSet, 0, -1);

  beforeEach(async () => {
    names = redisNames(`test_leases_life_${randomBytes(4).toString('hex')}`);
    redis = createRedis(REDIS_URL, 'leases-lifecycle');
    await redis.ping();
    events = [];
  });
  afterEach(async () => {
    for (const leases of made.splice(0)) await leases.stop();
    await redis.del(names.replicaSet, ...[0, 1, 2].map((shard) => names.shardLease(shard)));
    redis.disconnect();
  });

  it('a started replica ticks by itself; once stopped it ticks no more and takes nothing, by timer or by hand', async () => {
    const a = replica('replica-a', 2);
    a.start();
    await sleep(TICK_MS * 3);
    expect([...a.owned].sort()).toEqual([0, 1]);
    expect(await live()).toEqual(['replica-a']);
    await a.stop();
    expect(a.owned.size).toBe(0);
    expect(await live()).toEqual([]);
    expect(await redis.exists(names.shardLease(0), names.shardLease(1))).toBe(0);
    const seen = events.length;
    await sleep(TICK_MS * 4);
    await a.tick();
    expect(await live()).toEqual([]);
    expect(await redis.exists(names.shardLease(0), names.shardLease(1))).toBe(0);
    expect(events).toHaveLength(seen);
  });

  it('a tick asked for while one is under way does nothing: one round of commands, each shard acquired once', async () => {
    const a = replica('replica-a', 3);
    const zadd = jest.spyOn(redis, 'zadd');
    await Promise.all([a.tick(), a.tick(), a.tick()]);
    expect(zadd).toHaveBeenCalledTimes(1);
    expect(events.sort()).toEqual(['replica-a+0', 'replica-a+1', 'replica-a+2']);
    await a.tick();
    expect(zadd).toHaveBeenCalledTimes(2);
    zadd.mockRestore();
  });

  it('a lease is trusted until its renewal instant plus the TTL, and given up at that instant', async () => {
    const a = replica('replica-a', 1);
    const sentAt = Date.now();
    const now = jest.spyOn(Date, 'now').mockReturnValue(sentAt);
    try {
      await a.tick();
    } finally {
      now.mockRestore();
    }
    expect([...a.owned]).toEqual([0]);
    a.expireUnconfirmed(sentAt + TTL_MS - 1);
    expect([...a.owned]).toEqual([0]);
    a.expireUnconfirmed(sentAt + TTL_MS);
    expect([...a.owned]).toEqual([]);
    expect(events).toEqual(['replica-a+0', 'replica-a-0']);
  });

  it('a tick whose Redis command fails gives every lease up at once and does not throw', async () => {
    const a = replica('replica-a', 2);
    await a.tick();
    expect(a.owned.size).toBe(2);
    // The replica set's key made a string: ZADD now fails with WRONGTYPE, a real Redis error.
    await redis.set(names.replicaSet, 'not a sorted set');
    await expect(a.tick()).resolves.toBeUndefined();
    expect(a.owned.size).toBe(0);
    expect(events.filter((e) => e.startsWith('replica-a-')).sort()).toEqual(['replica-a-0', 'replica-a-1']);
    // Once Redis answers properly again, the next tick takes the shards afresh.
    await redis.del(names.replicaSet);
    await a.tick();
    expect(a.owned.size).toBe(2);
  });

  it('a renewal refused for a lease another replica took meanwhile is lost, and not trusted again', async () => {
    const a = replica('replica-a', 1);
    await a.tick();
    await redis.set(names.shardLease(0), 'replica-b', 'PX', TTL_MS);
    await a.tick();
    expect([...a.owned]).toEqual([]);
    expect(events).toEqual(['replica-a+0', 'replica-a-0']);
    a.expireUnconfirmed(Date.now() + 10 * TTL_MS);
    expect(events).toEqual(['replica-a+0', 'replica-a-0']);
    expect(await redis.get(names.shardLease(0))).toBe('replica-b');
  });

  it('a lease taken by a tick still under way when the replica stops is handed back, not left to its TTL', async () => {
    const a = replica('replica-a', 1);
    const realEval = redis.eval.bind(redis) as (...args: unknown[]) => Promise<unknown>;
    let stopping: Promise<void> | null = null;
    // The first ACQUIRE: stop() is called while it is on its way to Redis.
    const evalSpy = jest.spyOn(redis, 'eval').mockImplementation(((...args: unknown[]) => {
      const sent = realEval(...args);
      if (stopping === null && String(args[0]).includes("'set'")) stopping = a.stop();
      return sent;
    }) as typeof redis.eval);
    try {
      await a.tick();
      await stopping;
    } finally {
      evalSpy.mockRestore();
    }
    expect(stopping).not.toBeNull();
    expect(a.owned.size).toBe(0);
    expect(events).toEqual([]);
    expect(await redis.exists(names.shardLease(0))).toBe(0);
  });
});
