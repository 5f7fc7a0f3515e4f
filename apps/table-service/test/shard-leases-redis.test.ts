import { randomBytes } from 'node:crypto';
import { createRedis, type Redis } from '@dominoes/platform';
import { redisNames, type RedisNames } from '@dominoes/protocol';
import type { ShardLeases } from '../src/shards/shard-leases';
import { recordingLeases } from './support/recording-leases';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TTL_MS = 400;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The lease scripts on a real Redis, with two replicas competing for the same shards (issue 15: the
 * unit test's fake Redis answers by matching the scripts' text, so it cannot tell a script that
 * checks its holder from one that does not). Ticks are driven by hand, so each replica's view of
 * time is the test's: a replica "stalls" (a long GC pause, a frozen process) by not ticking.
 */
describe('shard leases on real Redis, with a competing holder', () => {
  let prefix: string;
  let names: RedisNames;
  const clients: Redis[] = [];
  const replicas: ShardLeases[] = [];
  let events: string[];

  const replica = async (id: string, shards: number): Promise<ShardLeases> => {
    const redis = createRedis(REDIS_URL, `leases-${id}`);
    await redis.ping(); // ready: a lease is taken only on a ready connection
    clients.push(redis);
    const leases = recordingLeases(redis, names, shards, id, (e) => events.push(e), {
      ttlMs: TTL_MS,
      tickMs: 100,
    });
    replicas.push(leases);
    return leases;
  };
  const redis = () => clients[0]!;
  const holder = (shard: number) => redis().get(names.shardLease(shard));

  beforeEach(() => {
    prefix = `test_leases_${randomBytes(4).toString('hex')}`;
    names = redisNames(prefix);
    events = [];
  });
  afterEach(async () => {
    for (const leases of replicas.splice(0)) await leases.stop();
    const keys = await redis().keys(`${prefix}:*`);
    if (keys.length > 0) await redis().del(...keys);
    for (const client of clients.splice(0)) client.disconnect();
  });

  it('a free lease is taken with the ttl set in Redis; the holder renews it, and a second replica cannot take it', async () => {
    const a = await replica('replica-a', 1);
    const b = await replica('replica-b', 1);
    await a.tick();
    expect([...a.owned]).toEqual([0]);
    expect(await holder(0)).toBe('replica-a');
    const ttl = await redis().pttl(names.shardLease(0));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(TTL_MS);
    await sleep(150);
    await a.tick(); // renewed: the ttl is back to (nearly) the whole of it
    expect(await redis().pttl(names.shardLease(0))).toBeGreaterThan(TTL_MS - 100);
    await b.tick();
    expect(b.owned.size).toBe(0);
    expect(await holder(0)).toBe('replica-a');
    expect(events).toEqual(['replica-a+0']);
  });

  it("expiry and takeover: a replica that stalls past the ttl loses the lease in Redis, another takes it, and the stalled one can neither renew nor release the new owner's lease", async () => {
    const a = await replica('replica-a', 1);
    const b = await replica('replica-b', 1);
    await a.tick();
    expect([...a.owned]).toEqual([0]);
    // A stalls: no tick for longer than the ttl. Redis lets its lease go by itself.
    await sleep(TTL_MS + 100);
    expect(await redis().exists(names.shardLease(0))).toBe(0);
    await b.tick();
    expect([...b.owned]).toEqual([0]);
    expect(await holder(0)).toBe('replica-b');
    const ttlOfB = await redis().pttl(names.shardLease(0));

    // A wakes up and ticks: its renewal is refused (the holder is B), so A gives the shard up...
    await a.tick();
    expect(a.owned.size).toBe(0);
    expect(events).toContain('replica-a-0');
    // ...and neither its renewal nor its attempt to take the shard again touched B's lease.
    expect(await holder(0)).toBe('replica-b');
    expect(await redis().pttl(names.shardLease(0))).toBeLessThanOrEqual(ttlOfB);
    // A shutting down hands back only what it holds: B's lease stays.
    await a.stop();
    expect(await holder(0)).toBe('replica-b');
    expect(b.owned.has(0)).toBe(true);
  });

  it('a replica that has not confirmed its lease within the ttl stops trusting it, even before Redis says so', async () => {
    const a = await replica('replica-a', 1);
    await a.tick();
    a.expireUnconfirmed(Date.now() + TTL_MS - 50);
    expect(a.owned.has(0)).toBe(true);
    a.expireUnconfirmed(Date.now() + TTL_MS + 1);
    expect(a.owned.size).toBe(0);
    expect(events).toEqual(['replica-a+0', 'replica-a-0']);
    // Its key is still its own in Redis: the next tick takes it back at once (no wait for the ttl).
    await a.tick();
    expect(a.owned.has(0)).toBe(true);
    expect(events).toEqual(['replica-a+0', 'replica-a-0', 'replica-a+0']);
  });

  it('a replica shutting down releases its own leases at once, so another takes them without waiting for the ttl', async () => {
    const a = await replica('replica-a', 2);
    await a.tick();
    expect([...a.owned].sort()).toEqual([0, 1]);
    await a.stop();
    expect(await holder(0)).toBeNull();
    expect(await holder(1)).toBeNull();
    expect(await redis().zscore(names.replicaSet, 'replica-a')).toBeNull();
    const b = await replica('replica-b', 2);
    await b.tick();
    expect([...b.owned].sort()).toEqual([0, 1]);
  });

  it('rebalancing: when a second replica arrives, the first hands back its extra shard (deleting only its own key) and the newcomer takes it', async () => {
    const a = await replica('replica-a', 2);
    await a.tick();
    expect(a.owned.size).toBe(2);
    const b = await replica('replica-b', 2);
    await b.tick(); // B is live now, but both shards are A's
    expect(b.owned.size).toBe(0);
    await a.tick(); // fair share is 1 each: A gives one back
    expect(a.owned.size).toBe(1);
    const kept = [...a.owned][0]!;
    const given = 1 - kept;
    expect(await holder(kept)).toBe('replica-a');
    expect(await holder(given)).toBeNull();
    await b.tick();
    expect([...b.owned]).toEqual([given]);
    expect(await holder(given)).toBe('replica-b');
    // A's next tick renews its own shard and leaves B's alone.
    await a.tick();
    expect([...a.owned]).toEqual([kept]);
    expect(await holder(given)).toBe('replica-b');
  });

  it('a replica whose lease another replica holds gives it up and reports it lost when its renewal is refused', async () => {
    const a = await replica('replica-a', 1);
    await a.tick();
    // Redis lost A's key and B took the shard (an empty Redis after a restart, then B was first).
    await redis().set(names.shardLease(0), 'replica-b', 'PX', 10_000);
    await a.tick();
    expect(a.owned.size).toBe(0);
    expect(events).toEqual(['replica-a+0', 'replica-a-0']);
    expect(await holder(0)).toBe('replica-b');
    expect(await redis().pttl(names.shardLease(0))).toBeGreaterThan(TTL_MS);
  });

  it("a replica that still believes it holds a shard, shutting down, does not release the new owner's lease", async () => {
    const a = await replica('replica-a', 1);
    await a.tick();
    // A's lease ran out and B took the shard before A noticed (A has not ticked since).
    await redis().set(names.shardLease(0), 'replica-b', 'PX', 10_000);
    expect(a.owned.has(0)).toBe(true);
    await a.stop();
    expect(await holder(0)).toBe('replica-b');
  });
});
