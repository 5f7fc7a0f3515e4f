import type { SeatEvent } from '@dominoes/protocol';
import type { SeatPublisher } from '../../src/table/table-ports';

/**
 * An in-memory SeatPublisher, for the engine's own tests only (the service publishes on Redis:
 * seat-publisher.ts). It records every batch of seat events it is given.
 */
export class InMemorySeatPublisher implements SeatPublisher {
  readonly batches: (readonly SeatEvent[])[] = [];

  async publish(events: readonly SeatEvent[]): Promise<void> {
    this.batches.push(events);
  }

  /** Every event published, in order. */
  get events(): SeatEvent[] {
    return this.batches.flat();
  }
}
