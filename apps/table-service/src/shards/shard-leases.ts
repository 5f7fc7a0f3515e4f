import type { Logger, Redis } from '@dominoes/platform';
import type { RedisNames } from '@dominoes/protocol';

/** Renews a lease only while this replica still holds it. */
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
/** Gives a lease up only if this replica holds it. */
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export interface LeaseHandlers {
  acquired(shard: number): void;
  lost(shard: number): void;
}

export interface LeaseTiming {
  /** A lease not renewed for this long is free for another replica to take. */
  readonly ttlMs: number;
  readonly tickMs: number;
}

export const DEFAULT_LEASE_TIMING: LeaseTiming = { ttlMs: 2500, tickMs: 500 };

/**
 * Each shard of tables is owned by at most one replica at a time: a Redis key with a TTL, renewed
 * every tick. Replicas take a fair share (ceil(shards / live replicas)) and hand extras back when
 * more replicas arrive. The lease alone is not trusted for writes: the table's version is (fencing).
 */
export class ShardLeases {
  readonly owned = new Set<number>();
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  private stopped = false;

  constructor(
    private readonly redis: Redis,
    private readonly names: RedisNames,
    private readonly shards: number,
    readonly replicaId: string,
    private readonly handlers: LeaseHandlers,
    private readonly logger: Logger,
    private readonly timing: LeaseTiming = DEFAULT_LEASE_TIMING,
  ) {}

  start(): void {
    void this.tick();
    this.timer = setInterval(() => void this.tick(), this.timing.tickMs);
  }

  private lose(shard: number, why: string): void {
    if (!this.owned.delete(shard)) return;
    this.logger.warn({ shard, why }, 'shard lease lost');
    this.handlers.lost(shard);
  }

  async tick(): Promise<void> {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    try {
      const now = Date.now();
      const set = this.names.replicaSet;
      await this.redis.zadd(set, now, this.replicaId);
      await this.redis.zremrangebyscore(set, 0, now - this.timing.ttlMs);
      const live = Math.max(1, await this.redis.zcard(set));
      const fairShare = Math.ceil(this.shards / live);
      for (const shard of [...this.owned]) {
        const renewed = await this.redis.eval(
          RENEW,
          1,
          this.names.shardLease(shard),
          this.replicaId,
          this.timing.ttlMs,
        );
        if (renewed !== 1) this.lose(shard, 'not renewed');
      }
      for (const shard of [...this.owned]
        .sort((a, b) => b - a)
        .slice(0, Math.max(0, this.owned.size - fairShare))) {
        this.lose(shard, 'rebalancing');
        await this.redis.eval(RELEASE, 1, this.names.shardLease(shard), this.replicaId);
      }
      const offset = hashText(this.replicaId) % this.shards;
      for (let i = 0; i < this.shards && this.owned.size < fairShare && !this.stopped; i++) {
        const shard = (offset + i) % this.shards;
        if (this.owned.has(shard)) continue;
        const taken = await this.redis.set(
          this.names.shardLease(shard),
          this.replicaId,
          'PX',
          this.timing.ttlMs,
          'NX',
        );
        if (taken === 'OK') {
          this.owned.add(shard);
          this.logger.debug({ shard }, 'shard lease acquired');
          this.handlers.acquired(shard);
        }
      }
    } catch (error) {
      // Redis unreachable: leases run out by themselves; drop ours before anyone else can take them.
      this.logger.error({ err: error }, 'lease tick failed');
      for (const shard of [...this.owned]) this.lose(shard, 'redis unreachable');
    } finally {
      this.ticking = false;
    }
  }

  /** On shutdown: hand every shard back at once so the other replicas take over without waiting. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    // Let a tick already under way finish before handing its shards back.
    while (this.ticking) await new Promise((r) => setTimeout(r, 10));
    for (const shard of [...this.owned]) {
      this.owned.delete(shard);
      this.handlers.lost(shard);
      await this.redis.eval(RELEASE, 1, this.names.shardLease(shard), this.replicaId).catch(() => undefined);
    }
    await this.redis.zrem(this.names.replicaSet, this.replicaId).catch(() => undefined);
  }
}

function hashText(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) >>> 0;
  return h;
}
