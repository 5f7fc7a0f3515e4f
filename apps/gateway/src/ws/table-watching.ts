import {
  decodeSpectatorEventHeader,
  intentIds,
  watchViewFrameText,
  type IntentEnvelope,
  type TableIntent,
} from '@dominoes/protocol';
import type { Clock, Logger } from '@dominoes/platform';
import type { IntentService } from '../intents/intent.service';
import type { Connection } from './connection';
import type { SeatRouter } from './seat-router';

/** Makes the envelope of one of a socket's intents (the hub's own, with its player and reply channel). */
export type EnvelopeOf = (
  conn: Connection,
  intentId: string,
  tableId: string,
  intent: TableIntent,
  withReply: boolean,
) => IntentEnvelope;

/**
 * Watching tables, on the gateway (decision 0018). A watching socket gets `watchView` frames: the
 * table's public view, from the table's spectator channel, which this gateway subscribes to while
 * at least one of its sockets watches the table. The table-service that owns the table counts the
 * watchers, from the `watch` intents sent here; its reply to a watch is the first view.
 *
 * A socket watches one table at a time; while watching it acts on nothing (the hub refuses with
 * SPECTATORS_CANNOT_ACT). A new watch ends the previous one at once, and a refused watch leaves the
 * socket watching nothing.
 */
export class TableWatching {
  private readonly byTable = new Map<string, Set<Connection>>();
  private readonly subscribed = new Map<string, Promise<void>>();

  constructor(
    private readonly router: SeatRouter,
    private readonly intents: IntentService,
    private readonly envelope: EnvelopeOf,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** This gateway's sockets that watch `tableId` (the table's chat reaches them too). */
  watchingSockets(tableId: string): Connection[] {
    return [...(this.byTable.get(tableId) ?? [])].filter((conn) => conn.watching?.tableId === tableId);
  }

  /** Tables watched from this gateway. */
  get tables(): number {
    return this.byTable.size;
  }

  /** A `watch` (or, with `again`, a `sync` of a watching socket): resolves once the socket is answered. */
  async watch(conn: Connection, id: string, tableId: string, again = false): Promise<void> {
    const asked = again ? (conn.watching?.asked ?? false) : false;
    if (!again) this.stop(conn);
    conn.watches += 1;
    const n = conn.watches;
    const watching = { tableId, n, asked };
    conn.watching = watching;
    if (!again) conn.lastVersion = -1;
    // Subscribed before asking: no change stored after the table-service counts this watcher is missed.
    await this.subscribe(conn, tableId);
    // Another watch, an unwatch, a join or the close came meanwhile: this watch is not asked at all
    // (asked after the unwatch that replaced it, the table-service would count the socket forever).
    if (conn.watching !== watching) return this.replaced(conn, id);
    watching.asked = true;
    const outcome = await this.askWatch(conn, tableId, n);
    if (conn.watching !== watching) return this.replaced(conn, id);
    if (!outcome.ok) {
      conn.watching = null;
      this.unsubscribe(conn, tableId);
      conn.send({ type: 'error', id, code: outcome.code, message: outcome.message });
      return;
    }
    const { reply } = outcome;
    this.sendView(conn, reply);
    conn.send({ type: 'ack', id, version: reply.version });
  }

  /**
   * Asks the table's public view again for every socket watching from here, after the subscriptions
   * came back from a Redis reconnection (a restart, a cluster failover): the spectator views published
   * meanwhile were lost, and a table whose last change was among them would be shown as it was until
   * its next change (for good, at a finished match). Each is asked as a watch of its own, as a
   * watching socket's `sync`; the socket gets the view, and no ack (it asked for nothing).
   */
  resync(): void {
    let sockets = 0;
    for (const [tableId, conns] of this.byTable)
      for (const conn of conns) {
        const watching = conn.watching;
        if (watching?.tableId !== tableId || !watching.asked) continue;
        sockets += 1;
        conn.watches += 1;
        watching.n = conn.watches;
        void this.askWatch(conn, tableId, watching.n)
          .then((outcome) => {
            if (conn.watching !== watching || !outcome.ok) return;
            this.sendView(conn, outcome.reply);
          })
          .catch((error: unknown) =>
            this.logger.error({ err: error, conn: conn.id }, "asking for a spectator's view again failed"),
          );
      }
    if (sockets > 0)
      this.logger.info({ sockets }, "view subscriptions back: the spectators' views asked for again");
  }

  /** Asks the table to count the socket as watching (its `n`-th watch); the reply holds the view. */
  private askWatch(conn: Connection, tableId: string, n: number) {
    return this.intents.request(
      this.envelope(conn, intentIds.watch(conn.id, n, true), tableId, { kind: 'watch', on: true }, true),
    );
  }

  /** The reply's view, to a socket that holds no newer one. */
  private sendView(conn: Connection, reply: { view?: string; version: number | null }): void {
    if (reply.view !== undefined && reply.version !== null && reply.version >= conn.lastVersion) {
      conn.lastVersion = reply.version;
      conn.sendText(watchViewFrameText(reply.version, this.clock.now(), reply.view));
    }
  }

  /** Ends the socket's watch, if any, and tells the table (its count goes down). */
  stop(conn: Connection): void {
    const watching = conn.watching;
    if (!watching) return;
    conn.watching = null;
    conn.lastVersion = -1;
    this.unsubscribe(conn, watching.tableId);
    if (!watching.asked) return;
    void this.intents.dispatch(
      this.envelope(
        conn,
        intentIds.watch(conn.id, watching.n, false),
        watching.tableId,
        { kind: 'watch', on: false },
        false,
      ),
    );
  }

  /** A watch that a later watch, an unwatch, a join or the close replaced: answered, never left hanging. */
  private replaced(conn: Connection, id: string): void {
    conn.send({
      type: 'error',
      id,
      code: 'NOT_ALLOWED_NOW',
      message: 'A later watch, unwatch or join of this socket replaced this watch.',
    });
  }

  private async subscribe(conn: Connection, tableId: string): Promise<void> {
    let set = this.byTable.get(tableId);
    if (!set) {
      set = new Set();
      this.byTable.set(tableId, set);
      this.subscribed.set(
        tableId,
        this.router.listen(this.router.spectatorChannelOf(tableId), (message) =>
          this.deliver(tableId, message),
        ),
      );
    }
    set.add(conn);
    await this.subscribed.get(tableId);
  }

  private unsubscribe(conn: Connection, tableId: string): void {
    const set = this.byTable.get(tableId);
    if (!set || !set.delete(conn) || set.size > 0) return;
    this.byTable.delete(tableId);
    this.subscribed.delete(tableId);
    this.router.unlisten(this.router.spectatorChannelOf(tableId));
  }

  private deliver(tableId: string, message: string): void {
    const decoded = decodeSpectatorEventHeader(message);
    if (!decoded.ok || decoded.header.tableId !== tableId) {
      this.logger.warn(
        { tableId, reason: decoded.ok ? 'wrong table' : decoded.reason },
        'dropped a spectator event',
      );
      return;
    }
    const { header, viewJson } = decoded;
    let frame: string | null = null;
    for (const conn of this.byTable.get(tableId) ?? []) {
      if (conn.watching?.tableId !== tableId || header.version < conn.lastVersion) continue;
      conn.lastVersion = header.version;
      frame ??= watchViewFrameText(header.version, this.clock.now(), viewJson);
      conn.sendText(frame);
    }
  }
}
