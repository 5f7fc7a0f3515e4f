import {
  decodeLobbyUpdate,
  type LobbyRequest,
  type RedisNames,
  type ServerMessage,
} from '@dominoes/protocol';
import type { Clock, Logger } from '@dominoes/platform';
import type { Connection } from '../ws/connection';
import type { SeatRouter } from '../ws/seat-router';
import { ApiError } from '../http/errors';
import type { LobbyReader } from './lobby-reader';
import type { OpenTable, QuickPlay } from './quick-play';

/** Opens a new public table for a socket's quick play: the create path's limits, the socket on the host's seat. */
export type OpenForSocket = (conn: Connection, player: { id: string; name: string }) => OpenTable;

/** A socket asks for the whole lobby at most this often; sooner, it keeps its live updates (and gets an ack). */
export const LOBBY_SNAPSHOT_INTERVAL_MS = 1_000;
/** Updates held for one socket while its snapshot is read (at most 3 s, the statement timeout). */
const MAX_PENDING = 1_000;

interface Subscriber {
  /** Updates that came while its snapshot was being read: sent after it, in order. */
  pending: string[] | null;
  lastSnapshotAt: number;
}

/**
 * The lobby's sockets on this gateway (issue 12, decision 0019). A subscribing socket gets the whole
 * lobby (`lobby`, read from Postgres), then every `lobbyUpdate` the table-services publish on the
 * lobby channel, which this gateway reads on its one subscriber connection (the seat router's).
 * Updates that arrive while a snapshot is read are held and sent after it; the client keeps the
 * newest version of each table, so an update older than the snapshot changes nothing.
 */
export class LobbyHub {
  private readonly subscribers = new Map<Connection, Subscriber>();

  constructor(
    private readonly router: SeatRouter,
    private readonly names: RedisNames,
    private readonly reader: LobbyReader,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly quick: QuickPlay | null = null,
    private readonly openFor: OpenForSocket | null = null,
  ) {}

  /**
   * Quick play on a socket: the player seated with this socket's connection (QuickPlay). The table's
   * id, for the socket hub to bind the socket to the seat as a `join` does; null when refused (the
   * error frame is sent).
   */
  async quickPlay(
    conn: Connection,
    frame: Extract<LobbyRequest, { type: 'quickPlay' }>,
  ): Promise<string | null> {
    const player = conn.player;
    if (player === null || this.quick === null || this.openFor === null) {
      conn.send({
        type: 'error',
        id: frame.id,
        code: player === null ? 'UNAUTHENTICATED' : 'UNAVAILABLE',
        message: player === null ? 'Say hello with your token first.' : 'Quick play is not available here.',
      });
      return null;
    }
    const { variant, target, seats } = frame;
    const request = {
      variant,
      ...(target === undefined ? {} : { target }),
      ...(seats === undefined ? {} : { seats }),
    };
    try {
      const seated = await this.quick.play(player, request, this.openFor(conn, player), conn.id);
      return seated.tableId;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      conn.send({ type: 'error', id: frame.id, code: error.code, message: error.message });
      return null;
    }
  }

  /** Listens on the lobby channel (before the first socket can subscribe). */
  start(): Promise<void> {
    return this.router.listen(this.names.lobbyChannel, (message) => this.onUpdate(message));
  }

  get size(): number {
    return this.subscribers.size;
  }

  /** `on`: subscribe `conn` (or refresh it) and send the whole lobby; off: stop sending it updates. */
  async subscribe(conn: Connection, id: string, on: boolean): Promise<void> {
    if (conn.player === null) {
      conn.send({ type: 'error', id, code: 'UNAUTHENTICATED', message: 'Say hello with your token first.' });
      return;
    }
    if (!on) {
      this.subscribers.delete(conn);
      conn.send({ type: 'ack', id, version: null });
      return;
    }
    const now = this.clock.now();
    const known = this.subscribers.get(conn);
    if (known && (known.pending !== null || now - known.lastSnapshotAt < LOBBY_SNAPSHOT_INTERVAL_MS)) {
      // Subscribed already, and its lobby is fresh (or on its way): the updates keep it so.
      conn.send({ type: 'ack', id, version: null });
      return;
    }
    const subscriber: Subscriber = { pending: [], lastSnapshotAt: now };
    this.subscribers.set(conn, subscriber);
    let frame: ServerMessage;
    try {
      const snapshot = await this.reader.snapshot(conn.player.id);
      frame = { type: 'lobby', ...snapshot, serverTime: this.clock.now() };
    } catch (error) {
      this.logger.warn({ err: error, conn: conn.id }, 'lobby: Postgres failed');
      if (this.subscribers.get(conn) === subscriber) this.subscribers.delete(conn);
      conn.send({
        type: 'error',
        id,
        code: 'UNAVAILABLE',
        message: 'The lobby cannot be read right now; try again.',
      });
      return;
    }
    // Unsubscribed, closed or subscribed again meanwhile: that newer request answers.
    if (this.subscribers.get(conn) !== subscriber || conn.closed) return;
    conn.send(frame);
    for (const text of subscriber.pending ?? []) conn.sendText(text);
    subscriber.pending = null;
    conn.send({ type: 'ack', id, version: null });
  }

  /** The socket closed: no more updates. */
  drop(conn: Connection): void {
    this.subscribers.delete(conn);
  }

  private onUpdate(message: string): void {
    if (this.subscribers.size === 0) return;
    const update = decodeLobbyUpdate(message);
    // A private table is never listed: an update that says otherwise is dropped, like a malformed one.
    if (update === null || (update.table !== null && !update.table.public)) {
      this.logger.warn({ channel: this.names.lobbyChannel }, 'dropped an invalid lobby update');
      return;
    }
    const frame: ServerMessage = { type: 'lobbyUpdate', ...update };
    const text = JSON.stringify(frame);
    for (const [conn, subscriber] of this.subscribers) {
      if (subscriber.pending !== null) {
        if (subscriber.pending.length < MAX_PENDING) subscriber.pending.push(text);
      } else conn.sendText(text);
    }
  }
}
