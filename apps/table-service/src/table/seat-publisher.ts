import { createLogger, onCluster, publishOn, type Logger, type RedisClient } from '@dominoes/platform';
import { encodeTableViews, type RedisNames, type SeatEvent } from '@dominoes/protocol';
import { orderedWrites, throwIfFailed } from '../transport/ordered-writes';
import type { SeatPublisher } from './table-ports';

/**
 * Publishes a change's seat views as ONE message per table on the table's views channel
 * (names.viewsChannel, decision 0027); each gateway splits it to the sockets bound to each seat.
 *
 * On one Redis the message joins the connection's ordered writes (transport/ordered-writes.ts):
 * `publish` returns once it is queued, ahead of the reply and the XACK the transport queues after
 * it, and all three leave in one round trip. A failure is logged here; it fails the reply and the
 * ack of the same write too, so the intent is read again and answered (its views are lost, as any
 * view published while Redis is away: the next change sends whole views, a client's sync asks).
 * On a cluster the views channel and the reply channel are on different nodes: the message is
 * published (SPUBLISH) and waited for, before the reply.
 */
export class RedisSeatPublisher implements SeatPublisher {
  constructor(
    private readonly redis: RedisClient,
    private readonly names: RedisNames,
    /** The service's logger (the module's); the engine's tests leave it out. */
    private readonly logger: Logger = createLogger('seat-publisher'),
  ) {}

  async publish(events: readonly SeatEvent[]): Promise<void> {
    const byTable = new Map<string, SeatEvent[]>();
    for (const event of events) {
      const table = byTable.get(event.tableId);
      if (table) table.push(event);
      else byTable.set(event.tableId, [event]);
    }
    if (onCluster(this.redis)) {
      for (const [tableId, views] of byTable)
        await publishOn(this.redis, true, this.names.viewsChannel(tableId), encodeTableViews(views));
      return;
    }
    for (const [tableId, views] of byTable) {
      const message = encodeTableViews(views);
      orderedWrites(this.redis)
        .add((pipeline) => pipeline.publish(this.names.viewsChannel(tableId), message))
        .then(throwIfFailed)
        .catch((error: unknown) =>
          this.logger.warn({ err: error, tableId }, 'the views of a stored change were not published'),
        );
    }
  }
}
