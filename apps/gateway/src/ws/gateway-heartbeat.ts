import type { Logger, RedisClient } from '@dominoes/platform';

/** Deletes the key only while it still holds this gateway's epoch (not a successor's under the same id). */
const DELETE_IF_OURS = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

export interface GatewayHeartbeatOptions {
  /** A connection of its own; the heartbeat closes it on stop(). */
  readonly redis: RedisClient;
  /** `names.gatewayAlive(gatewayId)`. */
  readonly key: string;
  /** The gateway's boot epoch (SocketHub.epoch): every connection id it makes has a larger number. */
  readonly epoch: number;
  readonly intervalMs: number;
  readonly ttlMs: number;
  readonly logger: Logger;
}

/**
 * Tells the table-services this gateway is alive: its epoch in `names.gatewayAlive(gatewayId)`, set
 * with a TTL every interval. A gateway that dies without closing its sockets (kill -9, OOM, a lost
 * node) stops setting it; once it has been gone for a while the table-service marks the seats of
 * that gateway's sockets disconnected, as the gateway itself would have done on each close.
 */
export class GatewayHeartbeat {
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;
  private stopped = false;
  private failing = false;

  constructor(private readonly options: GatewayHeartbeatOptions) {
    // Failures are logged by beat(); this only keeps ioredis from reporting unhandled error events.
    options.redis.on('error', () => undefined);
  }

  /** Sets the key once (before the gateway takes sockets), then every interval. */
  async start(): Promise<void> {
    await this.beat();
    if (this.stopped || this.timer) return;
    this.timer = setInterval(() => void this.beat(), this.options.intervalMs);
    this.timer.unref();
  }

  /** One `SET key epoch PX ttl`; a beat still under way (Redis slow or away) is not sent twice. Never rejects. */
  beat(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const { redis, key, epoch, ttlMs, logger } = this.options;
    this.beating ??= redis
      .set(key, String(epoch), 'PX', ttlMs)
      .then(
        () => {
          if (this.failing) logger.info({ key }, 'gateway heartbeat written again');
          this.failing = false;
        },
        (error: unknown) => {
          if (!this.failing) {
            logger.warn(
              { key, err: error instanceof Error ? error.message : String(error) },
              'gateway heartbeat could not be written; retrying every interval',
            );
          }
          this.failing = true;
        },
      )
      .finally(() => {
        this.beating = null;
      });
    return this.beating;
  }

  /**
   * Clean shutdown, once the sockets' presence notes are flushed: no more beats, the key is deleted
   * (so nobody waits for it to expire) and the connection closed.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const { redis, key, epoch, logger } = this.options;
    // A SET landing after the delete would bring the key back for a TTL.
    await this.beating;
    try {
      await redis.eval(DELETE_IF_OURS, 1, key, String(epoch));
    } catch (error) {
      logger.warn(
        { key, err: error instanceof Error ? error.message : String(error) },
        'gateway heartbeat could not be deleted; it expires by itself',
      );
    }
    redis.disconnect();
  }
}
