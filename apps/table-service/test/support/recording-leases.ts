import { createLogger, type Redis } from '@dominoes/platform';
import type { RedisNames } from '@dominoes/protocol';
import { ShardLeases } from '../../src/shards/shard-leases';

/**
 * A replica's lease keeper on real Redis whose gains and losses are recorded as `<id>+<shard>` and
 * `<id>-<shard>` (in the order they happen), logging nothing.
 */
export function recordingLeases(
  redis: Redis,
  names: RedisNames,
  shards: number,
  id: string,
  record: (event: string) => void,
  timing: { readonly ttlMs: number; readonly tickMs: number },
): ShardLeases {
  return new ShardLeases(
    redis,
    names,
    shards,
    id,
    { acquired: (s) => record(`${id}+${s}`), lost: (s) => record(`${id}-${s}`) },
    createLogger('shard-leases-test', 'silent'),
    timing,
  );
}
