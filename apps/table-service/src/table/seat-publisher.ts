import { onCluster, publishOn, type RedisClient } from '@dominoes/platform';
import { encodeSeatMessage, type RedisNames, type SeatMessage } from '@dominoes/protocol';
import type { SeatPublisher } from './table-ports';

/**
 * Publishes each seat's view on its Redis channel (names.seatChannel); a table's channels share its
 * shard's hash tag, so on a cluster they are one node's (SPUBLISH). The commands are issued one by one
 * on the table-service's connection, which writes each tick's commands together (decision 0033):
 * with the change's reply, its XACK and the other changes of the same tick they go out in one write
 * (issue 14), in the order issued.
 */
export class RedisSeatPublisher implements SeatPublisher {
  constructor(
    private readonly redis: RedisClient,
    private readonly names: RedisNames,
  ) {}

  async publish(messages: readonly SeatMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const cluster = onCluster(this.redis);
    // Every PUBLISH is issued before any is awaited; one that fails must reach the engine, which
    // publishes the stored change's views again.
    await Promise.all(
      messages.map((message) => {
        const { tableId, seat } = message.header;
        return publishOn(
          this.redis,
          cluster,
          this.names.seatChannel(tableId, seat),
          encodeSeatMessage(message),
        );
      }),
    );
  }
}
