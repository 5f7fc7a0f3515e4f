import type { RedisNames } from '@dominoes/protocol';
import type { createRedis } from '@dominoes/platform';

/** Whatever Redis client the platform makes (one Redis, or a cluster). */
export type ChatRedis = ReturnType<typeof createRedis>;

/**
 * How many chat messages one player may send per window, counted in Redis (`names.chatRate`), so
 * that two sockets, on one gateway or on two, share one count. A fixed window: the first message
 * starts it (the counter's TTL), every message counts, refused ones too, so a flood stays refused
 * until its window ends.
 */
export class ChatRate {
  constructor(
    private readonly redis: ChatRedis,
    private readonly names: RedisNames,
    private readonly limit: { readonly messages: number; readonly windowMs: number },
  ) {}

  /** Counts one message of `playerId`; true when it is within the limit. Throws when Redis fails. */
  async take(playerId: string): Promise<boolean> {
    const key = this.names.chatRate(playerId);
    const results = await this.redis.multi().incr(key).pexpire(key, this.limit.windowMs, 'NX').exec();
    const count = results?.[0]?.[1];
    if (typeof count !== 'number') throw new Error('the chat counter did not answer');
    return count <= this.limit.messages;
  }
}
