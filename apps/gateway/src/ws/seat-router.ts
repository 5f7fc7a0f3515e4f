import {
  decodeSeatEventHeader,
  splitSeatMessages,
  viewChangeFrameText,
  viewFrameText,
  type RedisNames,
  type SeatEventHeader,
} from '@dominoes/protocol';
import {
  SpanKind,
  subscriberOf,
  withRemoteParent,
  type Clock,
  type Logger,
  type RedisClient,
} from '@dominoes/platform';
import type { GatewayMetrics } from '../metrics';
import type { Connection, SeatBinding } from './connection';

/**
 * Routes each seat's views to the sockets bound to that seat, and to no other socket.
 *
 * The gateway holds ONE Redis subscriber connection. A change of a table is one message on the
 * table's views channel holding each seat's part (decision 0037); the gateway is subscribed to that
 * channel while at least one local socket is bound to one of the table's seats, unsubscribes when the
 * last one goes, and sends each socket its own seat's part only. On a cluster the subscriptions are
 * sharded (SSUBSCRIBE, to the node of each channel's slot).
 */
export class SeatRouter {
  /** Seat key (`seatKey`) → the sockets bound to that seat here. */
  private readonly bound = new Map<string, Set<Connection>>();
  /** Views channel → how many of its table's seats have a socket here, and its subscription. */
  private readonly tables = new Map<string, { seats: number; subscribed: Promise<unknown> }>();
  /** Channels that are not views (a gateway's control channel), each with its handler. */
  private readonly listeners = new Map<string, (message: string) => void>();
  private readonly channelsOf: ReturnType<typeof subscriberOf>;
  /** Told of a socket that was sent a change that does not fit its view (it needs the whole view). */
  private behind: (conn: Connection) => void = () => undefined;
  /** Told when the subscriptions came back after a reconnection (the spectators' views resync). */
  private readonly resubscribed: (() => void)[] = [];

  /** A seat's key among the bindings: one per table and seat (a seat number has no colon). */
  static seatKey(tableId: string, seat: number): string {
    return `${seat}:${tableId}`;
  }

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
    // Views published while the subscriptions were down (a Redis restart, a cluster failover) are
    // lost: every bound socket's whole view is asked for again, so no seat shows an old table until
    // its next change (which would not fit, decision 0036) or, waiting for nobody, for good.
    this.channelsOf.onResubscribed(() => {
      this.resync();
      for (const handler of this.resubscribed) handler();
    });
  }

  /**
   * Called after the subscriptions came back from a reconnection, once the bound sockets' views are
   * asked for: messages of the other channels (spectators') published meanwhile were lost too.
   */
  whenResubscribed(handler: () => void): void {
    this.resubscribed.push(handler);
  }

  /** Who asks for the whole view of a socket a change could not be sent to (the SocketHub). */
  whenBehind(handler: (conn: Connection) => void): void {
    this.behind = handler;
  }

  /** The table's views channel, which this gateway listens to while one of its seats is bound here. */
  viewsChannelOf(tableId: string): string {
    return this.names.viewsChannel(tableId);
  }

  /** The table's spectator channel (TableWatching listens to it). */
  spectatorChannelOf(tableId: string): string {
    return this.names.spectatorChannel(tableId);
  }

  /** Binds `conn` to its binding's seat; resolves once Redis confirms the table's subscription. */
  async add(conn: Connection, binding: SeatBinding): Promise<void> {
    const channel = this.names.viewsChannel(binding.tableId);
    let table = this.tables.get(channel);
    if (!table) {
      table = { seats: 0, subscribed: this.channelsOf.subscribe(channel) };
      this.tables.set(channel, table);
    }
    let set = this.bound.get(binding.key);
    if (!set) {
      set = new Set();
      this.bound.set(binding.key, set);
      table.seats += 1;
    }
    set.add(conn);
    await table.subscribed;
  }

  /** Sends every message of a channel that is not a seat's to `listener`. */
  async listen(channel: string, listener: (message: string) => void): Promise<void> {
    this.listeners.set(channel, listener);
    await this.channelsOf.subscribe(channel);
  }

  /** Stops a `listen`. */
  unlisten(channel: string): void {
    if (!this.listeners.delete(channel)) return;
    this.channelsOf
      .unsubscribe(channel)
      .catch((error: Error) => this.logger.warn({ err: error.message, channel }, 'unsubscribe failed'));
  }

  /** Unbinds `conn` from its binding's seat; the table's channel is left with its last seat here. */
  remove(conn: Connection, binding: SeatBinding): void {
    const set = this.bound.get(binding.key);
    if (!set || !set.delete(conn)) return;
    if (set.size > 0) return;
    this.bound.delete(binding.key);
    const channel = this.names.viewsChannel(binding.tableId);
    const table = this.tables.get(channel);
    if (!table || --table.seats > 0) return;
    this.tables.delete(channel);
    this.channelsOf
      .unsubscribe(channel)
      .catch((error: Error) => this.logger.warn({ err: error.message, channel }, 'unsubscribe failed'));
  }

  async close(): Promise<void> {
    this.bound.clear();
    this.tables.clear();
    this.listeners.clear();
    await this.subscriber.quit().catch(() => undefined);
  }

  /** Asks for the whole view of every socket bound to a seat here (after the subscriptions came back). */
  private resync(): void {
    let sockets = 0;
    for (const conns of this.bound.values())
      for (const conn of conns) {
        sockets += 1;
        this.behind(conn);
      }
    if (sockets > 0)
      this.logger.info({ sockets }, "view subscriptions back: the seats' views asked for again");
  }

  /** Views channels subscribed: tables with at least one seat bound here. */
  get channels(): number {
    return this.tables.size;
  }

  /** Seats with at least one local socket. */
  get seats(): number {
    return this.bound.size;
  }

  /** Each seat's part of a table's views message goes to the sockets bound to that seat here. */
  private deliver(channel: string, message: string): void {
    if (!this.tables.has(channel)) return;
    const parts = splitSeatMessages(message);
    if (parts === null) {
      this.logger.warn({ channel }, 'dropped an invalid views message: its lines do not pair up');
      return;
    }
    // The parts name one table: its channel is worked out once, not per seat.
    let tableOfChannel: string | null = null;
    for (const part of parts) tableOfChannel = this.deliverSeat(channel, part, tableOfChannel);
  }

  /** One seat's part; returns the table the channel was found to be (`tableOfChannel`, when known). */
  private deliverSeat(channel: string, part: string, tableOfChannel: string | null): string | null {
    const decoded = decodeSeatEventHeader(part);
    if (!decoded.ok) {
      this.logger.warn({ channel, reason: decoded.reason }, 'dropped an invalid seat event');
      return tableOfChannel;
    }
    const { header, viewJson: body } = decoded;
    // The channel names the table; an event that says otherwise is not delivered.
    if (header.tableId !== tableOfChannel && this.names.viewsChannel(header.tableId) !== channel) {
      this.logger.warn(
        { channel, tableId: header.tableId, seat: header.seat },
        'dropped a seat event published on the wrong channel',
      );
      return tableOfChannel;
    }
    const key = SeatRouter.seatKey(header.tableId, header.seat);
    const conns = this.bound.get(key);
    if (!conns || conns.size === 0) return header.tableId;
    // The end of an intent's trace: its views going out (a child of the table-service's span).
    if (header.traceparent)
      withRemoteParent(header.traceparent, 'ws.view', () => this.send(conns, key, header, body), {
        kind: SpanKind.CONSUMER,
        attributes: { 'dominoes.table': header.tableId, 'dominoes.seat': header.seat },
      });
    else this.send(conns, key, header, body);
    return header.tableId;
  }

  /**
   * A whole view goes to each socket of the seat's player that has no newer one; a change (decision
   * 0036) only to one that holds the view at its base: one that holds another is behind (it missed a
   * view, or was bound after it), gets nothing, and its whole view is asked for.
   */
  private send(conns: Set<Connection>, key: string, header: SeatEventHeader, body: string): void {
    const base = header.base;
    let frame: string | null = null;
    for (const conn of conns) {
      const binding = conn.binding;
      if (!binding || binding.key !== key) continue;
      // The seat may have changed hands (freed before the start, taken by someone else): a view
      // goes only to the sockets of the player it was made for.
      if (conn.player === null || conn.player.id !== header.playerId) continue;
      if (base === undefined ? header.version < conn.lastVersion : header.version <= conn.lastVersion)
        continue;
      if (base !== undefined && base !== conn.lastVersion) {
        this.metrics.viewsBehind.inc();
        this.behind(conn);
        continue;
      }
      conn.lastVersion = header.version;
      frame ??=
        base === undefined
          ? viewFrameText(header.version, this.clock.now(), body)
          : viewChangeFrameText(header.version, base, this.clock.now(), body);
      conn.sendText(frame);
      if (header.cause)
        this.metrics.actionToView.observe(Math.max(0, this.clock.now() - header.cause.sentAt) / 1000);
    }
  }
}
