import { createRedis, type BaseConfig } from '@dominoes/platform';
import { redisNames } from '@dominoes/protocol';

/**
 * The moved shards that a table-service replica owns now (the Redis lease of apps/table-service's
 * ShardLeases): a copy made while one does could miss what it writes next. With the table-services
 * stopped, every lease is gone (handed back on shutdown, or run out within its TTL, 2.5 s).
 */
export async function ownedShards(
  config: Pick<BaseConfig, 'redisUrl' | 'redisClusterNodes' | 'redisPrefix'>,
  shards: readonly number[],
  total: number,
): Promise<{ shard: number; replica: string }[]> {
  const redis = createRedis(config, 'shards-move', { maxRetriesPerRequest: 1, lazyConnect: true });
  const names = redisNames(config.redisPrefix, total);
  try {
    await redis.connect();
    const owned: { shard: number; replica: string }[] = [];
    // One GET per shard: on a cluster each lease is on its shard's node.
    for (const shard of shards) {
      const replica = await redis.get(names.shardLease(shard));
      if (replica !== null) owned.push({ shard, replica });
    }
    return owned;
  } finally {
    redis.disconnect();
  }
}
