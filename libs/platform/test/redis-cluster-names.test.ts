import calculateSlot from 'cluster-key-slot';
import { deadlineGroupOf, redisNames, shardOf } from '@dominoes/protocol';
import { ConfigError, readBaseConfig } from '../src/config';
import { DeadlineQueues, type DeadlineQueue } from '../src/deadlines';
import { clusterNode } from '../src/redis';

/**
 * Redis Cluster (decision 0025): everything a command or script touches at once is in one slot.
 * `calculateSlot` is the CRC16 of the hash tag that ioredis (and Redis) use to route a key.
 */
describe('Redis names on a cluster: one hash tag per shard, per gateway, per deadline group', () => {
  const names = redisNames('dominoes', 16);

  it("a shard's intent stream, lease and the views channel of each of its tables hash to one slot", () => {
    for (let shard = 0; shard < 16; shard++) {
      const slot = calculateSlot(names.intentStream(shard));
      expect(calculateSlot(names.shardLease(shard))).toBe(slot);
      expect(names.intentStream(shard)).toContain(`{shard:${shard}}`);
    }
    for (const tableId of ['ABCDEFGHJKLM', 'T1', 'ZZZZZZZZZZZZ', 'table-with-dashes']) {
      const shard = shardOf(tableId, 16);
      expect(calculateSlot(names.viewsChannel(tableId))).toBe(calculateSlot(names.intentStream(shard)));
    }
  });

  it("the views channels carry the table's shard under TABLE_SHARDS, not a fixed 16", () => {
    const four = redisNames('p', 4);
    const tableId = 'ABCDEFGHJKLM';
    expect(four.viewsChannel(tableId)).toBe(`p:{shard:${shardOf(tableId, 4)}}:table:${tableId}:views`);
  });

  it("a gateway's heartbeat, control and reply channels share the gateway's slot", () => {
    const slot = calculateSlot(names.gatewayAlive('gw-1'));
    expect(calculateSlot(names.gatewayControl('gw-1'))).toBe(slot);
    expect(calculateSlot(names.replyChannel('gw-1'))).toBe(slot);
  });

  it("every BullMQ key of a deadline group's queue is in one slot (BullMQ's scripts name several)", () => {
    const prefix = names.bullPrefix(2);
    const keys = ['wait', 'delayed', 'active', 'meta', 'events', 'de:TABLE1', 'job-id'].map(
      (suffix) => `${prefix}:deadlines:${suffix}`,
    );
    expect(new Set(keys.map((key) => calculateSlot(key))).size).toBe(1);
    expect(calculateSlot(names.bullPrefix(0))).not.toBe(calculateSlot(names.bullPrefix(1)));
  });

  it("shard s is in deadline group s mod groups; a table goes to its shard group's queue", () => {
    expect([0, 1, 2, 3, 4, 5].map((s) => deadlineGroupOf(s, 3))).toEqual([0, 1, 2, 0, 1, 2]);
    const queues = [0, 1, 2].map((group) => ({ group }) as unknown as DeadlineQueue);
    const of = new DeadlineQueues(queues, 16);
    for (const tableId of ['A', 'B', 'C', 'ABCDEFGHJKLM'])
      expect(of.of(tableId)).toBe(queues[shardOf(tableId, 16) % 3]);
  });
});

describe('REDIS_CLUSTER_NODES and DEADLINE_GROUPS', () => {
  it('lists the nodes (trimmed, empty items dropped); unset is one Redis at REDIS_URL', () => {
    expect(readBaseConfig({}).redisClusterNodes).toEqual([]);
    expect(
      readBaseConfig({ REDIS_CLUSTER_NODES: ' 127.0.0.1:7000, redis-0.redis:6379 ,,', DEADLINE_GROUPS: '4' }),
    ).toMatchObject({ redisClusterNodes: ['127.0.0.1:7000', 'redis-0.redis:6379'], deadlineGroups: 4 });
    expect(clusterNode('127.0.0.1:7000')).toEqual({ host: '127.0.0.1', port: 7000 });
    expect(clusterNode('redis://:s%40cret@h:7001')).toEqual({ host: 'h', port: 7001, password: 's@cret' });
  });

  it('a node that is not host:port, or more groups than shards, is a ConfigError naming the variable', () => {
    expect(() => readBaseConfig({ REDIS_CLUSTER_NODES: '127.0.0.1' })).toThrow(
      new ConfigError('REDIS_CLUSTER_NODES must be host:port,host:port,...; got "127.0.0.1".'),
    );
    expect(() => readBaseConfig({ REDIS_CLUSTER_NODES: 'a:1,b c:2' })).toThrow(ConfigError);
    expect(() => readBaseConfig({ DEADLINE_GROUPS: '17' })).toThrow(
      new ConfigError('DEADLINE_GROUPS must be at most TABLE_SHARDS (16); got "17".'),
    );
    expect(() => readBaseConfig({ DEADLINE_GROUPS: '0' })).toThrow(ConfigError);
  });
});
