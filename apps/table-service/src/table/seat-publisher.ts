import { onCluster, publishOn, type RedisClient } from '@dominoes/platform';
import { encodeSeatMessages, type RedisNames, type SeatMessage } from '@dominoes/protocol';
import type { SeatPublisher } from './table-ports';

/**
 * Publishes a change's seat messages as one message per table on its views channel
 * (names.viewsChannel, decision 0037): one PUBLISH per change, not one per seat. A table's channels
 * share its shard's hash tag, so on a cluster they are one node's (SPUBLISH). The commands are issued
 * one by one on the table-service's connection, which writes each tick's commands together (decision
 * 0033): with the change's reply, its XACK and the other changes of the same tick they go out in one
 * write (issue 14), in the order issued.
 */
export class RedisSeatPublisher implements SeatPublisher {
  constructor(
    private readonly redis: RedisClient,
    private readonly names: RedisNames,
  ) {}

  async publish(messages: readonly SeatMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const cluster = onCluster(this.redis);
    const byTable = new Map<string, SeatMessage[]>();
    for (const message of messages) {
      const { tableId } = message.header;
      const ofTable = byTable.get(tableId);
      if (ofTable) ofTable.push(message);
      else byTable.set(tableId, [message]);
    }
    // Every PUBLISH is issued before any is awaited; one that fails must reach the engine, which
    // publishes the stored change's views again.
    await Promise.all(
      [...byTable].map(([table, ofTable]) =>
        publishOn(this.redis, cluster, this.names.viewsChannel(table), encodeSeatMessages(ofTable)),
      ),
    );
  }
}
