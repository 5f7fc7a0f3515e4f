import { createRedis, type Redis } from '@dominoes/platform';
import { SeatEventReader, type RedisNames, type SeatEvent } from '@dominoes/protocol';

/**
 * Everything published on the views channels of some tables, as the gateways receive it, one seat
 * event each: for the suites that check what the engine published, not only what it stored. A change
 * is applied to the seat's view before it (decision 0036): subscribe before the tables' first views.
 * `seats`: only the events of seats below it are kept.
 */
export interface SeatChannels {
  readonly events: SeatEvent[];
  /** The events received since the last call (and forgets them). */
  take(): SeatEvent[];
  /** Waits long enough for anything already published to arrive (a loopback round trip is ~35 µs). */
  settle(ms?: number): Promise<void>;
  close(): void;
}

export async function watchSeatChannels(
  redisUrl: string,
  names: RedisNames,
  tables: readonly string[],
  seats = 4,
): Promise<SeatChannels> {
  const subscriber: Redis = createRedis(redisUrl, 'seat-channels-test');
  const events: SeatEvent[] = [];
  const reader = new SeatEventReader();
  subscriber.on('message', (_channel: string, message: string) =>
    events.push(...reader.readAll(message).filter((event) => event.seat < seats)),
  );
  await subscriber.subscribe(...tables.map((table) => names.viewsChannel(table)));
  return {
    events,
    take: () => events.splice(0),
    settle: (ms = 150) => new Promise((r) => setTimeout(r, ms)),
    close: () => subscriber.disconnect(),
  };
}
