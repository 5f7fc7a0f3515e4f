import { randomBytes } from 'node:crypto';
import { createRedis, type Redis } from '@dominoes/platform';
import { redisNames, type RedisNames } from '@dominoes/protocol';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { ShardLeases } from '../src/shards/shard-leases';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TTL_MS = 400;
const TICK_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What the mutation run of the group `leases` left (docs/testing.md): the log lines of every lease
 * taken and given up, a renewal extending the trust, which shards rebalancing hands back, replicas
 * starting their search at different shards, a lease answered after the connection dropped, and
 * stop (its listener, its timer, a tick under way). Real Redis, ticks driven by hand.
 */
describe('shard leases: logs, renewal, rebalancing order, spread and stopping (real Redis)', () => {
  let names: RedisNames;
  let redis: Redis;
  let events: string[];
  const made: ShardLeases[] = [];
  const clients: Redis[] = [];

  const replica = (id: string, shards: number, client = redis) => {
    const { logger, lines } = recordingLogger();
    const leases = new ShardLeases(
      client,
      names,
      shards,
      id,
      { acquired: (s) => events.push(`+${s}`), lost: (s) => events.push(`-${s}`) },
      logger,
      { ttlMs: TTL_MS, tickMs: TICK_MS },
    );
    made.push(leases);
    return { leases, lines };
  };
  /** Makes `ids` live replicas in the replica set (as their ticks would), so the fair share shrinks. */
  const liveToo = (...ids: string[]) =>
    Promise.all(ids.map((id) => redis.zadd(names.replicaSet, Date.now(), id)));
  const client = async (label: string) => {
    const c = createRedis(REDIS_URL, label);
    await c.ping();
    clients.push(c);
    return c;
  };

  /** Redis closes `c`'s connection (CLIENT KILL from another one); resolves once `c` has seen it close. */
  const dropConnection = async (c: Redis, id?: number) => {
    const closed = new Promise((resolve) => c.once('close', resolve));
    await redis.client('KILL', 'ID', String(id ?? (await c.client('ID'))));
    await closed;
  };

  beforeEach(async () => {
    names = redisNames(`test_leases_edges_${randomBytes(4).toString('hex')}`);
    redis = await client('leases-edges');
    events = [];
  });
  afterEach(async () => {
    for (const leases of made.splice(0)) await leases.stop();
    const keys = await redis.keys(`${names.replicaSet.split(':')[0]}*`);
    if (keys.length > 0) await redis.del(...keys);
    for (const c of clients.splice(0)) c.disconnect();
  });

  const lost = (lines: { msg?: string }[]) =>
    lines
      .filter((l) => l.msg === 'shard lease lost')
      .map((l) => l as { level: number; shard: number; why: string });

  it('each lease taken is a debug line with its shard; each given up is a warning with its shard and why', async () => {
    const { leases, lines } = replica('replica-a', 2);
    await leases.tick();
    expect(lines.filter((l) => l.msg === 'shard lease acquired')).toEqual([
      expect.objectContaining({ level: 20, shard: expect.any(Number) }),
      expect.objectContaining({ level: 20, shard: expect.any(Number) }),
    ]);
    leases.expireUnconfirmed(Date.now() + 10 * TTL_MS);
    await leases.tick();
    await redis.set(names.shardLease(0), 'replica-b', 'PX', 10_000);
    await leases.tick();
    expect(lost(lines).map((l) => [l.level, l.shard, l.why])).toEqual([
      [40, 0, 'not confirmed within the lease ttl'],
      [40, 1, 'not confirmed within the lease ttl'],
      [40, 0, 'not renewed'],
    ]);
  });

  it('rebalancing hands back the highest-numbered shards first, each logged as rebalancing', async () => {
    const { leases, lines } = replica('replica-a', 4);
    await leases.tick();
    expect([...leases.owned].sort()).toEqual([0, 1, 2, 3]);
    await liveToo('replica-z');
    events = [];
    await leases.tick();
    expect(events).toEqual(['-3', '-2']);
    expect([...leases.owned].sort()).toEqual([0, 1]);
    expect(lost(lines).map((l) => [l.shard, l.why])).toEqual([
      [3, 'rebalancing'],
      [2, 'rebalancing'],
    ]);
  });

  it('a tick whose command fails is an error line with the error, and each lease it drops says redis unreachable', async () => {
    const { leases, lines } = replica('replica-a', 1);
    await leases.tick();
    await redis.set(names.replicaSet, 'not a sorted set');
    await leases.tick();
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 50,
        msg: 'lease tick failed',
        err: expect.objectContaining({ message: expect.stringMatching(/WRONGTYPE/) }),
      }),
    );
    expect(lost(lines).map((l) => [l.shard, l.why])).toEqual([[0, 'redis unreachable']]);
  });

  it('a dropped connection gives every lease up, each saying redis connection lost', async () => {
    const own = await client('leases-edges-own');
    const { leases, lines } = replica('replica-a', 2, own);
    leases.start();
    for (let i = 0; i < 50 && leases.owned.size < 2; i++) await sleep(10);
    expect(leases.owned.size).toBe(2);
    await dropConnection(own);
    for (let i = 0; i < 50 && leases.owned.size > 0; i++) await sleep(10);
    expect(lost(lines).map((l) => l.why)).toEqual(['redis connection lost', 'redis connection lost']);
  });

  it('a confirmed renewal extends the trust to its own instant plus the TTL', async () => {
    const { leases } = replica('replica-a', 1);
    const t0 = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(t0);
    try {
      await leases.tick();
      clock.mockReturnValue(t0 + 300);
      await leases.tick();
    } finally {
      clock.mockRestore();
    }
    leases.expireUnconfirmed(t0 + TTL_MS);
    expect([...leases.owned]).toEqual([0]);
    leases.expireUnconfirmed(t0 + 300 + TTL_MS);
    expect([...leases.owned]).toEqual([]);
  });

  it('replicas with different ids start their search at different shards (not every one at shard 0)', async () => {
    const ids = Array.from({ length: 16 }, (_, i) => `replica-${i}`);
    const first = new Set<number>();
    for (const id of ids) {
      names = redisNames(`test_leases_edges_${randomBytes(4).toString('hex')}`);
      await liveToo(...ids.filter((other) => other !== id));
      const { leases } = replica(id, 16);
      await leases.tick(); // fair share 1 of 16 shards among 16 replicas
      expect(leases.owned.size).toBe(1);
      first.add([...leases.owned][0]!);
      await leases.stop();
      await redis.del(names.replicaSet);
    }
    expect(first.size).toBeGreaterThanOrEqual(4);
  });

  it('a lease whose take is answered after the connection dropped is not held', async () => {
    const own = await client('leases-edges-drop');
    const { leases } = replica('replica-a', 1, own);
    const evalOf = own.eval.bind(own);
    const ownId = await own.client('ID');
    let dropped = false;
    jest.spyOn(own, 'eval').mockImplementation(async (...args: Parameters<Redis['eval']>) => {
      const answer = await evalOf(...args);
      // The connection drops once, right after the first take is answered.
      if (!dropped) {
        dropped = true;
        await dropConnection(own, ownId);
      }
      return answer;
    });
    await leases.tick();
    expect(leases.owned.size).toBe(0);
    expect(events).toEqual([]);
  });

  it("stop takes its connection listener off, and its timer runs no more (not even the TTL's check)", async () => {
    const before = redis.listenerCount('close');
    const { leases } = replica('replica-a', 1);
    leases.start();
    expect(redis.listenerCount('close')).toBe(before + 1);
    await sleep(TICK_MS * 2);
    await leases.stop();
    expect(redis.listenerCount('close')).toBe(before);
    const checks = jest.spyOn(leases, 'expireUnconfirmed');
    await sleep(TICK_MS * 4);
    expect(checks).not.toHaveBeenCalled();
  });

  it('stop during a tick returns once that tick has ended', async () => {
    const { leases } = replica('replica-a', 3);
    let tickEnded = false;
    const ticking = leases.tick().then(() => (tickEnded = true));
    await leases.stop();
    expect(tickEnded).toBe(true);
    await ticking;
  });
});
