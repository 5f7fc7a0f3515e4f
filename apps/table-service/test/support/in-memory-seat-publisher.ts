import { encodeSeatMessages, SeatEventReader, type SeatEvent, type SeatMessage } from '@dominoes/protocol';
import type { SeatPublisher } from '../../src/table/table-ports';

/**
 * An in-memory SeatPublisher, for the engine's own tests only (the service publishes on Redis:
 * seat-publisher.ts). It records every batch it is given as the seat events a gateway would read.
 */
export class InMemorySeatPublisher implements SeatPublisher {
  readonly batches: (readonly SeatEvent[])[] = [];
  private readonly reader = new SeatEventReader();

  async publish(messages: readonly SeatMessage[]): Promise<void> {
    this.batches.push(this.reader.readAll(encodeSeatMessages(messages)));
  }

  /** Every event published, in order. */
  get events(): SeatEvent[] {
    return this.batches.flat();
  }
}
