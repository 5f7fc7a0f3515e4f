import { GatewayControlSchema, type GatewayControl, type RedisNames } from '@dominoes/protocol';
import { onCluster, publishOn, type Logger, type RedisClient } from '@dominoes/platform';
import type { SeatRouter } from './seat-router';

/** A player's socket list lives this long after its last hello (it is refreshed at every hello). */
const LIST_TTL_MS = 24 * 3600 * 1000;

/**
 * Every gateway's sockets of one player, in Redis: a sorted set of connection ids by hello time
 * (`names.playerSockets`). A hello adds its socket and learns which ones are over the limit, oldest
 * first; those on another gateway are closed by it, told on its control channel
 * (`names.gatewayControl`). A gateway that died leaves its ids behind: being the oldest they are the
 * first to go, and telling a dead gateway costs nothing.
 */
export class PlayerSockets {
  private readonly control: string;

  constructor(
    private readonly redis: RedisClient,
    private readonly router: SeatRouter,
    private readonly names: RedisNames,
    private readonly gatewayId: string,
    private readonly max: number,
    private readonly logger: Logger,
  ) {
    this.control = names.gatewayControl(gatewayId);
  }

  /** Listens on this gateway's control channel; `evict` closes one of its sockets. */
  start(evict: (connectionId: string, message: GatewayControl) => void): Promise<void> {
    return this.router.listen(this.control, (text) => {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
      const message = GatewayControlSchema.safeParse(json);
      if (!message.success) {
        this.logger.warn({ channel: this.control }, 'dropped an invalid control message');
        return;
      }
      evict(message.data.connectionId, message.data);
    });
  }

  /** Records the socket; resolves with the player's connection ids over the limit, oldest first. */
  async added(playerId: string, connectionId: string, now: number): Promise<string[]> {
    const key = this.names.playerSockets(playerId);
    const results = await this.redis
      .multi()
      .zadd(key, now, connectionId)
      .pexpire(key, LIST_TTL_MS)
      .zrange(key, 0, -(this.max + 1))
      .exec();
    const over = results?.[2]?.[1];
    return Array.isArray(over) ? (over as string[]) : [];
  }

  /** Takes the ids off the list, and tells the other gateways to close theirs. */
  async evict(playerId: string, connectionIds: readonly string[]): Promise<void> {
    if (connectionIds.length === 0) return;
    // Commands of their own, not one pipeline: on a cluster the list (the player's tag) and each
    // control channel (its gateway's) are on different slots. They still go out back to back.
    const cluster = onCluster(this.redis);
    const sent: Promise<unknown>[] = [this.redis.zrem(this.names.playerSockets(playerId), ...connectionIds)];
    for (const connectionId of connectionIds) {
      const gateway = connectionId.slice(0, connectionId.lastIndexOf(':'));
      if (gateway === this.gatewayId) continue;
      const message: GatewayControl = { kind: 'too-many-sockets', connectionId, max: this.max };
      sent.push(publishOn(this.redis, cluster, this.names.gatewayControl(gateway), JSON.stringify(message)));
    }
    await Promise.all(sent);
  }

  async removed(playerId: string, connectionId: string): Promise<void> {
    await this.redis.zrem(this.names.playerSockets(playerId), connectionId);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
