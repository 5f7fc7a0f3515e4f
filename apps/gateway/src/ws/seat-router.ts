import { decodeTableViews, viewFrameText, type RedisNames, type TableViewsHeader } from '@dominoes/protocol';
import {
  SpanKind,
  subscriberOf,
  withRemoteParent,
  type Clock,
  type Logger,
  type RedisClient,
} from '@dominoes/platform';
import type { GatewayMetrics } from '../metrics';
import type { Connection } from './connection';

/**
 * Routes each seat's views to the sockets bound to that seat, and to no other socket.
 *
 * The gateway holds ONE Redis subscriber connection. It is subscribed to a table's views channel
 * while at least one local socket is bound to a seat of that table, and unsubscribes when the last
 * one goes. A message on it carries every seat's view of one change (decision 0027); each view goes
 * to the sockets bound to its own seat, made for its player. On a cluster the subscriptions are
 * sharded (SSUBSCRIBE, to the node of each channel's slot).
 */
export class SeatRouter {
  /** Per views channel: its table, and per seat the local sockets bound to it. */
  private readonly bound = new Map<string, { tableId: string; seats: Map<number, Set<Connection>> }>();
  private readonly subscribed = new Map<string, Promise<unknown>>();
  /** Channels that are not seats (a gateway's control channel), each with its handler. */
  private readonly listeners = new Map<string, (message: string) => void>();
  private readonly channelsOf: ReturnType<typeof subscriberOf>;

  constructor(
    private readonly subscriber: RedisClient,
    private readonly names: RedisNames,
    private readonly clock: Clock,
    private readonly metrics: GatewayMetrics,
    private readonly logger: Logger,
  ) {
    this.channelsOf = subscriberOf(subscriber);
    this.channelsOf.onMessage((channel: string, message: string) => {
      try {
        const listener = this.listeners.get(channel);
        if (listener) listener(message);
        else this.deliver(channel, message);
      } catch (error) {
        this.logger.error({ err: error, channel }, 'view delivery failed');
      }
    });
    subscriber.on('error', (error: Error) =>
      this.logger.warn({ err: error.message }, 'view subscriber: Redis error'),
    );
  }

  /** The table's spectator channel (TableWatching listens to it). */
  spectatorChannelOf(tableId: string): string {
    return this.names.spectatorChannel(tableId);
  }

  /** Binds `conn` to the table's seat; resolves once Redis confirms the table's subscription. */
  async add(conn: Connection, tableId: string, seat: number): Promise<void> {
    const channel = this.names.viewsChannel(tableId);
    let table = this.bound.get(channel);
    if (!table) {
      table = { tableId, seats: new Map() };
      this.bound.set(channel, table);
      this.subscribed.set(channel, this.channelsOf.subscribe(channel));
    }
    let conns = table.seats.get(seat);
    if (!conns) {
      conns = new Set();
      table.seats.set(seat, conns);
    }
    conns.add(conn);
    await this.subscribed.get(channel);
  }

  /** Sends every message of a channel that is not a seat's to `listener`. */
  async listen(channel: string, listener: (message: string) => void): Promise<void> {
    this.listeners.set(channel, listener);
    await this.channelsOf.subscribe(channel);
  }

  /** Stops a `listen`. */
  unlisten(channel: string): void {
    if (!this.listeners.delete(channel)) return;
    this.unsubscribe(channel);
  }

  /** Unbinds `conn` from the table's seat; the table's subscription ends with its last bound socket. */
  remove(conn: Connection, tableId: string, seat: number): void {
    const channel = this.names.viewsChannel(tableId);
    const table = this.bound.get(channel);
    const conns = table?.seats.get(seat);
    if (!table || !conns || !conns.delete(conn)) return;
    if (conns.size > 0) return;
    table.seats.delete(seat);
    if (table.seats.size > 0) return;
    this.bound.delete(channel);
    this.subscribed.delete(channel);
    this.unsubscribe(channel);
  }

  async close(): Promise<void> {
    this.bound.clear();
    this.subscribed.clear();
    this.listeners.clear();
    await this.subscriber.quit().catch(() => undefined);
  }

  private unsubscribe(channel: string): void {
    this.channelsOf
      .unsubscribe(channel)
      .catch((error: Error) => this.logger.warn({ err: error.message, channel }, 'unsubscribe failed'));
  }

  private deliver(channel: string, message: string): void {
    const table = this.bound.get(channel);
    if (!table) return;
    const decoded = decodeTableViews(message);
    if (!decoded.ok) {
      this.logger.warn({ channel, reason: decoded.reason }, "dropped an invalid table's views");
      return;
    }
    const { header, viewJson } = decoded;
    // The channel names the table; views that say otherwise are not delivered.
    if (header.tableId !== table.tableId) {
      this.logger.warn(
        { channel, tableId: header.tableId },
        "dropped a table's views published on the wrong channel",
      );
      return;
    }
    const send = (): void => {
      header.seats.forEach(({ seat, playerId }, i) => {
        const conns = table.seats.get(seat);
        if (conns) this.send(conns, header, seat, playerId, viewJson[i]!);
      });
    };
    // The end of an intent's trace: its views going out (a child of the table-service's span).
    if (header.traceparent)
      withRemoteParent(header.traceparent, 'ws.view', send, {
        kind: SpanKind.CONSUMER,
        attributes: { 'dominoes.table': header.tableId },
      });
    else send();
  }

  private send(
    conns: Set<Connection>,
    header: TableViewsHeader,
    seat: number,
    playerId: string | null,
    viewJson: string,
  ): void {
    let frame: string | null = null;
    for (const conn of conns) {
      const binding = conn.binding;
      if (!binding || binding.tableId !== header.tableId || binding.seat !== seat) continue;
      // The seat may have changed hands (freed before the start, taken by someone else): a view
      // goes only to the sockets of the player it was made for.
      if (conn.player === null || conn.player.id !== playerId) continue;
      if (header.version < conn.lastVersion) continue;
      conn.lastVersion = header.version;
      frame ??= viewFrameText(header.version, this.clock.now(), viewJson);
      conn.sendText(frame);
      if (header.cause)
        this.metrics.actionToView.observe(Math.max(0, this.clock.now() - header.cause.sentAt) / 1000);
    }
  }
}
