import type { Logger, RedisClient } from '@dominoes/platform';
import type { RedisNames } from '@dominoes/protocol';

/** Renews a lease only while this replica still holds it. */
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
/** Takes a free lease, or one this replica still holds (after it stopped trusting it). */
const ACQUIRE = `local holder = redis.call('get', KEYS[1]) if holder == false or holder == ARGV[1] then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 else return 0 end`;
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
 *
 * A lease is held only while Redis confirms it. When the connection drops (Redis restarted, perhaps
 * empty: every lease, stream and deadline job gone) every shard is given up at once, and when a
 * lease has not been confirmed for its whole TTL (Redis hangs, or answers too late) that shard is
 * given up: another replica may have it by now. Once Redis answers again the next tick takes shards
 * afresh, and `acquired` makes the owner rebuild what Redis may have lost (deadlines from Postgres,
 * the stream's consumer group).
 */
export class ShardLeases {
  readonly owned = new Set<number>();
  /** Until when each owned lease is surely ours: the start of its last confirmed renewal plus the TTL. */
  private readonly validUntil = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  private stopped = false;
  private readonly onClose = (): void => {
    if (this.stopped) return;
    for (const shard of [...this.owned]) this.lose(shard, 'redis connection lost');
  };

  constructor(
    private readonly redis: RedisClient,
    private readonly names: RedisNames,
    private readonly shards: number,
    readonly replicaId: string,
    private readonly handlers: LeaseHandlers,
    private readonly logger: Logger,
    private readonly timing: LeaseTiming = DEFAULT_LEASE_TIMING,
  ) {}

  start(): void {
    this.redis.on('close', this.onClose);
    void this.tick();
    this.timer = setInterval(() => {
      this.expireUnconfirmed();
      void this.tick();
    }, this.timing.tickMs);
  }

  private lose(shard: number, why: string): void {
    this.validUntil.delete(shard);
    if (!this.owned.delete(shard)) return;
    this.logger.warn({ shard, why }, 'shard lease lost');
    this.handlers.lost(shard);
  }

  private hold(shard: number, since: number): void {
    this.validUntil.set(shard, since + this.timing.ttlMs);
  }

  /** Gives up every lease whose TTL may have run out in Redis without a renewal being confirmed. */
  expireUnconfirmed(now = Date.now()): void {
    for (const shard of [...this.owned]) {
      if ((this.validUntil.get(shard) ?? 0) <= now) this.lose(shard, 'not confirmed within the lease ttl');
    }
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
        const sentAt = Date.now();
        const renewed = await this.redis.eval(
          RENEW,
          1,
          this.names.shardLease(shard),
          this.replicaId,
          this.timing.ttlMs,
        );
        if (renewed !== 1) this.lose(shard, 'not renewed');
        else if (this.owned.has(shard)) this.hold(shard, sentAt);
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
        const sentAt = Date.now();
        const taken = await this.redis.eval(
          ACQUIRE,
          1,
          this.names.shardLease(shard),
          this.replicaId,
          this.timing.ttlMs,
        );
        // Not if the connection dropped meanwhile, or the shard was taken while this command waited.
        if (taken === 1 && !this.owned.has(shard) && !this.stopped && this.redis.status === 'ready') {
          this.owned.add(shard);
          this.hold(shard, sentAt);
          this.logger.debug({ shard }, 'shard lease acquired');
          this.handlers.acquired(shard);
        } else if (taken === 1 && this.stopped) {
          // stop() was called while this command waited: the lease is in Redis but was never ours to
          // use, and stop() has already handed back what it knew of. Hand it back too, or the shard
          // would stay unowned until its TTL ran out.
          await this.redis.eval(RELEASE, 1, this.names.shardLease(shard), this.replicaId);
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
    this.redis.off('close', this.onClose);
    // Let a tick already under way finish before handing its shards back.
    while (this.ticking) await new Promise((r) => setTimeout(r, 10));
    for (const shard of [...this.owned]) {
      this.owned.delete(shard);
      this.validUntil.delete(shard);
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
