import { SeatEventSchema, type RedisNames, type SeatEvent } from '@dominoes/protocol';
import { SpanKind, withRemoteParent, type Clock, type Logger, type Redis } from '@dominoes/platform';
import type { GatewayMetrics } from '../metrics';
import type { Connection } from './connection';

/**
 * Routes each seat's views to the sockets bound to that seat, and to no other socket.
 *
 * The gateway holds ONE Redis subscriber connection. It is subscribed to a seat channel while at
 * least one local socket is bound to that seat, and unsubscribes when the last one goes.
 */
export class SeatRouter {
  private readonly bound = new Map<string, Set<Connection>>();
  private readonly subscribed = new Map<string, Promise<unknown>>();

  constructor(
    private readonly subscriber: Redis,
    private readonly names: RedisNames,
    private readonly clock: Clock,
    private readonly metrics: GatewayMetrics,
    private readonly logger: Logger,
  ) {
    subscriber.on('message', (channel: string, message: string) => {
      try {
        this.deliver(channel, message);
      } catch (error) {
        this.logger.error({ err: error, channel }, 'view delivery failed');
      }
    });
    subscriber.on('error', (error: Error) =>
      this.logger.warn({ err: error.message }, 'view subscriber: Redis error'),
    );
  }

  channelOf(tableId: string, seat: number): string {
    return this.names.seatChannel(tableId, seat);
  }

  /** Binds `conn` to the channel; resolves once Redis confirms the subscription. */
  async add(conn: Connection, channel: string): Promise<void> {
    let set = this.bound.get(channel);
    if (!set) {
      set = new Set();
      this.bound.set(channel, set);
      this.subscribed.set(channel, this.subscriber.subscribe(channel));
    }
    set.add(conn);
    await this.subscribed.get(channel);
  }

  remove(conn: Connection, channel: string): void {
    const set = this.bound.get(channel);
    if (!set || !set.delete(conn)) return;
    if (set.size > 0) return;
    this.bound.delete(channel);
    this.subscribed.delete(channel);
    this.subscriber
      .unsubscribe(channel)
      .catch((error: Error) => this.logger.warn({ err: error.message, channel }, 'unsubscribe failed'));
  }

  async close(): Promise<void> {
    this.bound.clear();
    this.subscribed.clear();
    await this.subscriber.quit().catch(() => undefined);
  }

  /** Channels with at least one local socket. */
  get channels(): number {
    return this.bound.size;
  }

  private deliver(channel: string, message: string): void {
    const conns = this.bound.get(channel);
    if (!conns || conns.size === 0) return;
    let json: unknown;
    try {
      json = JSON.parse(message);
    } catch {
      this.logger.warn({ channel }, 'dropped a seat event that is not JSON');
      return;
    }
    const parsed = SeatEventSchema.safeParse(json);
    if (!parsed.success) {
      this.logger.warn({ channel, issues: parsed.error.issues.slice(0, 3) }, 'dropped an invalid seat event');
      return;
    }
    const event = parsed.data;
    // The channel names the seat; an event that says otherwise is not delivered.
    if (this.names.seatChannel(event.tableId, event.seat) !== channel || event.view.you.seat !== event.seat) {
      this.logger.warn(
        { channel, tableId: event.tableId, seat: event.seat },
        'dropped a seat event published on the wrong channel',
      );
      return;
    }
    // The end of an intent's trace: its views going out (a child of the table-service's span).
    if (event.traceparent)
      withRemoteParent(event.traceparent, 'ws.view', () => this.send(conns, channel, event), {
        kind: SpanKind.CONSUMER,
        attributes: { 'dominoes.table': event.tableId, 'dominoes.seat': event.seat },
      });
    else this.send(conns, channel, event);
  }

  private send(conns: Set<Connection>, channel: string, event: SeatEvent): void {
    const serverTime = this.clock.now();
    const frame = JSON.stringify({ type: 'view', version: event.version, serverTime, view: event.view });
    for (const conn of conns) {
      const binding = conn.binding;
      if (!binding || binding.channel !== channel) continue;
      // The seat may have changed hands (freed before the start, taken by someone else): a view
      // goes only to the sockets of the player it was made for.
      if (conn.player === null || conn.player.id !== event.view.you.playerId) continue;
      if (event.version < conn.lastVersion) continue;
      conn.lastVersion = event.version;
      conn.sendText(frame);
      if (event.cause)
        this.metrics.actionToView.observe(Math.max(0, this.clock.now() - event.cause.sentAt) / 1000);
    }
  }
}
