import { Worker } from 'bullmq';
import calculateSlot from 'cluster-key-slot';
import { DEADLINE_QUEUE, redisNames, shardOf, type DeadlineJob } from '@dominoes/protocol';
import { createDeadlineQueues, upsertDeadline, type DeadlineQueues } from '../src/deadlines';
import { createRedis, onCluster, publishOn, subscriberOf, type RedisClient } from '../src/redis';
import { TestRedisCluster } from '../src/test-redis-cluster';

const eventually = async (check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<number> => {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await check()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not within ${timeoutMs} ms`);
};

/**
 * The services' Redis code on a real Redis Cluster (3 primaries, 3 replicas; decision 0025): the
 * one factory makes a Cluster client from REDIS_CLUSTER_NODES, views channels are sharded pub/sub,
 * the deadline queues of every shard group work, and all of it outlives a kill -9 of a primary.
 */
describe('on a real Redis Cluster', () => {
  let cluster: TestRedisCluster;
  const opened: RedisClient[] = [];
  const target = () => ({
    redisUrl: 'redis://unused:1',
    redisClusterNodes: cluster.nodes.split(',').slice(0, 2),
  });
  const open = (name: string, sharded = false): RedisClient => {
    const redis = createRedis(target(), name, { sharded }, { warn: () => undefined, info: () => undefined });
    opened.push(redis);
    return redis;
  };
  const prefix = `cluster_${process.pid}`;
  const names = redisNames(prefix, 16);

  beforeAll(async () => {
    cluster = await TestRedisCluster.start('platform');
  }, 120_000);
  afterAll(async () => {
    for (const redis of opened) redis.disconnect();
    await cluster?.stop();
  });

  it('REDIS_CLUSTER_NODES makes a Cluster client; the tags put each shard on one slot, and the 16 shards on all 3 primaries', async () => {
    const redis = open('names');
    expect(onCluster(redis)).toBe(true);
    await redis.set(names.shardLease(3), 'r1');
    expect(await redis.get(names.shardLease(3))).toBe('r1');
    // A same-slot script of two keys runs (a cross-slot one would be refused with CROSSSLOT).
    await redis.xadd(names.intentStream(3), '*', 'm', '{}');
    expect(
      await redis.eval(
        "return redis.call('exists', KEYS[1], KEYS[2])",
        2,
        names.intentStream(3),
        names.shardLease(3),
      ),
    ).toBe(2);
    await expect(
      redis.eval(
        "return redis.call('exists', KEYS[1], KEYS[2])",
        2,
        names.intentStream(3),
        names.intentStream(4),
      ),
    ).rejects.toThrow(/CROSSSLOT|same slot/i);
    const primaries = await cluster.primaryPorts();
    const ranges = await Promise.all(primaries.map((port) => cluster.slotsOf(port)));
    const holders = new Set(
      Array.from({ length: 16 }, (_, shard) => {
        const slot = calculateSlot(names.intentStream(shard));
        return ranges.findIndex((r) => r.some(([a, b]) => slot >= a && slot <= b));
      }),
    );
    expect(holders.size).toBe(3);
  });

  it("seat views are sharded pub/sub: SPUBLISH on the table's shard reaches the SSUBSCRIBEr, for tables on every node", async () => {
    const publisher = open('pub');
    const subscriber = open('sub', true);
    const channels = subscriberOf(subscriber);
    expect(channels.cluster).toBe(true);
    const got: string[] = [];
    channels.onMessage((channel, message) => got.push(`${channel}=${message}`));
    const tables = ['A1', 'B2', 'C3', 'D4', 'E5', 'F6', 'G7', 'H8'];
    for (const table of tables) await channels.subscribe(names.viewsChannel(table));
    for (const table of tables) await publishOn(publisher, true, names.viewsChannel(table), table);
    await eventually(() => got.length === tables.length, 5_000);
    expect(got.sort()).toEqual(tables.map((t) => `${names.viewsChannel(t)}=${t}`).sort());
    // Classic PUBLISH does not reach a sharded subscriber: every publisher must use publishOn.
    await publisher.publish(names.viewsChannel('A1'), 'classic');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(got).not.toContain(`${names.viewsChannel('A1')}=classic`);
  });

  it('one deadline queue per shard group: a job set through DeadlineQueues fires from the worker of its group', async () => {
    const queues: DeadlineQueues = createDeadlineQueues({
      ...target(),
      redisPrefix: prefix,
      tableShards: 16,
      deadlineGroups: 3,
    });
    const fired: string[] = [];
    const workers = queues.all.map(
      (_, group) =>
        new Worker<DeadlineJob>(
          DEADLINE_QUEUE,
          async (job) => void fired.push(`${group}:${job.data.tableId}`),
          {
            connection: open(`worker-${group}`),
            prefix: names.bullPrefix(group),
          },
        ),
    );
    try {
      const tables = ['T1', 'T2', 'T3', 'T4', 'T5', 'T6'];
      for (const tableId of tables)
        await upsertDeadline(
          queues.of(tableId),
          { tableId, key: `${tableId}:turn:1`, dueAt: Date.now() + 100 },
          100,
        );
      await eventually(() => fired.length === tables.length, 10_000);
      expect(fired.sort()).toEqual(tables.map((t) => `${shardOf(t, 16) % 3}:${t}`).sort());
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
      await queues.close();
    }
  });

  it('kill -9 of a primary: its replica takes over, writes to its slots and sharded subscriptions work again', async () => {
    const redis = open('failover');
    const subscriber = open('failover-sub', true);
    const channels = subscriberOf(subscriber);
    const got: string[] = [];
    channels.onMessage((_channel, message) => got.push(message));
    const primaries = await cluster.primaryPorts();
    const victim = primaries[0]!;
    const [slotStart] = (await cluster.slotsOf(victim))[0]!;
    // A shard whose slot the victim holds.
    const ranges = await cluster.slotsOf(victim);
    const shard = Array.from({ length: 64 }, (_, s) => s).find((s) => {
      const slot = calculateSlot(`${names.intentStream(s)}`);
      return ranges.some(([a, b]) => slot >= a && slot <= b);
    });
    expect(slotStart).toBeDefined();
    expect(shard).toBeDefined();
    const wide = redisNames(prefix, 64);
    const table = Array.from({ length: 10_000 }, (_, i) => `X${i}`).find((t) => shardOf(t, 64) === shard)!;
    const channel = wide.viewsChannel(table);
    await channels.subscribe(channel);
    await publishOn(redis, true, channel, 'before');
    await eventually(() => got.includes('before'), 5_000);
    await redis.set(wide.shardLease(shard!), 'before');

    await cluster.kill(victim);
    const started = Date.now();
    // A write to the lost primary's slots waits for the failover, then lands on the new primary.
    await redis.set(wide.shardLease(shard!), 'after');
    const writable = Date.now() - started;
    expect(await redis.get(wide.shardLease(shard!))).toBe('after');
    await cluster.waitHealthy(3, 30_000);
    // The sharded subscriber follows the slot to the promoted replica.
    const resubscribed = await eventually(async () => {
      await publishOn(redis, true, channel, 'after');
      await new Promise((resolve) => setTimeout(resolve, 100));
      return got.includes('after');
    }, 30_000);
    process.stdout.write(
      `failover: writable again after ${writable} ms, views again ${resubscribed} ms later\n`,
    );
    expect(writable).toBeLessThan(20_000);
  }, 90_000);
});
