import type { Redis } from '@dominoes/platform';
import { encodeSeatEvent, type RedisNames, type SeatEvent } from '@dominoes/protocol';
import type { SeatPublisher } from './table-ports';

/** Publishes each seat's view on its Redis channel (names.seatChannel), all of them in one pipeline. */
export class RedisSeatPublisher implements SeatPublisher {
  constructor(
    private readonly redis: Redis,
    private readonly names: RedisNames,
  ) {}

  async publish(events: readonly SeatEvent[]): Promise<void> {
    if (events.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const event of events)
      pipeline.publish(this.names.seatChannel(event.tableId, event.seat), encodeSeatEvent(event));
    await pipeline.exec();
  }
}
