import { onCluster, publishOn, type RedisClient } from '@dominoes/platform';
import { encodeSeatMessage, type RedisNames, type SeatMessage } from '@dominoes/protocol';
import type { SeatPublisher } from './table-ports';

/**
 * Publishes each seat's view on its Redis channel (names.seatChannel), all of them in one pipeline:
 * a table's channels share its shard's hash tag, so on a cluster they are one node's (SPUBLISH).
 */
export class RedisSeatPublisher implements SeatPublisher {
  constructor(
    private readonly redis: RedisClient,
    private readonly names: RedisNames,
  ) {}

  async publish(messages: readonly SeatMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const pipeline = this.redis.pipeline();
    const cluster = onCluster(this.redis);
    for (const message of messages) {
      const { tableId, seat } = message.header;
      publishOn(pipeline, cluster, this.names.seatChannel(tableId, seat), encodeSeatMessage(message));
    }
    // exec() resolves even when its commands fail (a pair [error, result] each): a PUBLISH that
    // failed must reach the engine, which publishes the stored change's views again.
    const results = await pipeline.exec();
    const failed = results?.find(([error]) => error !== null);
    if (failed) throw failed[0];
  }
}
