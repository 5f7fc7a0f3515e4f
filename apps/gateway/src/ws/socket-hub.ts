import type { IncomingMessage } from 'node:http';
import type WebSocket from 'ws';
import {
  actionOfMessage,
  connectionId,
  intentIds,
  IntentIdSchema,
  isActionMessage,
  isTalkMessage,
  MAX_FRAME_BYTES,
  MAX_SOCKET_FRAME_BYTES,
  parseClientFrame,
  viewFrameText,
  type ClientIntent,
  type ErrorCode,
  type IntentEnvelope,
  type TableIntent,
  type TalkMessage,
} from '@dominoes/protocol';
import { SpanKind, withSpan, type Clock, type Logger } from '@dominoes/platform';
import { verifyToken } from '../auth/tokens';
import type { GatewayConfig } from '../config';
import { clientAddress } from '../edge/client-address';
import type { IntentService } from '../intents/intent.service';
import type { GatewayMetrics } from '../metrics';
import { Connection } from './connection';
import type { PlayerSockets } from './player-sockets';
import { SeatRouter } from './seat-router';
import type { LobbyHub } from '../lobby/lobby-hub';
import type { ChatRelay } from '../chat/chat-relay';
import { TableWatching } from './table-watching';
import { TurnWrites } from './turn-writes';

/** ws refuses larger frames itself and closes with 1009; smaller ones over MAX_FRAME_BYTES get an error frame. */
export const WS_MAX_PAYLOAD = MAX_SOCKET_FRAME_BYTES;
const ABUSE_WINDOW_MS = 10_000;
const RATE_NOTICE_INTERVAL_MS = 1_000;
/** A socket's refused frames are logged at most once in this long (the metrics count every one). */
const REFUSAL_LOG_INTERVAL_MS = 1_000;

/** Close codes the gateway uses. */
export const CLOSE = { normal: 1000, policy: 1008, tooBig: 1009, restart: 1012 } as const;

/**
 * Everything that happens on the gateway's sockets: hello, intents, presence, views, limits.
 * Every entry point catches its own errors: nothing a client sends can throw out of a ws callback.
 */
export class SocketHub {
  private readonly connections = new Set<Connection>();
  /**
   * Socket numbers start at the boot time in ms, so connection ids (and the `<connectionId>:closed`
   * intent ids made from them) do not repeat when a gateway restarts under the same GATEWAY_ID.
   */
  private seq: number;
  /** The first socket number (the boot time in ms): the value of this gateway's heartbeat key. */
  readonly epoch: number;
  private draining = false;
  /** Each player's authenticated sockets on this gateway, oldest hello first. */
  private readonly byPlayer = new Map<string, Set<Connection>>();
  private readonly heartbeat: NodeJS.Timeout;
  /** The lobby's subscribers on this gateway (issue 12): set once at start-up (attachLobby). */
  private lobby: LobbyHub | null = null;
  /** The sockets that watch tables (decision 0018). */
  readonly watching: TableWatching;
  /** Each socket's frames of one turn of the event loop, written together. */
  private readonly turnWrites = new TurnWrites();

  constructor(
    private readonly config: GatewayConfig,
    private readonly intents: IntentService,
    private readonly router: SeatRouter,
    private readonly clock: Clock,
    private readonly metrics: GatewayMetrics,
    private readonly logger: Logger,
    /** The player's sockets on every gateway (Redis); without it the limit is this gateway's alone. */
    private readonly everywhere: PlayerSockets | null = null,
    /** The tables' chat (decision 0020); without it talk frames are refused. */
    private readonly chat: ChatRelay | null = null,
  ) {
    this.watching = new TableWatching(router, intents, (...args) => this.envelope(...args), clock, logger);
    router.whenBehind((conn) => this.askView(conn));
    router.whenResubscribed(() => this.watching.resync());
    this.epoch = clock.now();
    this.seq = this.epoch;
    // Pings every socket silent for WS_PING_INTERVAL_MS and drops the ones whose pong does not come (a
    // frozen or vanished client would otherwise look connected, and keep the full turn clock instead
    // of P17's). A frame or a pong counts as a sign of life: the ping is for the silent.
    const tick = Math.max(20, Math.min(1_000, Math.min(config.pingIntervalMs, config.pongTimeoutMs) / 5));
    this.heartbeat = setInterval(() => {
      try {
        this.checkLiveness();
      } catch (error) {
        this.logger.error({ err: error }, 'socket heartbeat failed');
      }
    }, tick);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.connections.size;
  }

  /** Hands `lobby` frames to the lobby (the module wires it once both exist). */
  attachLobby(lobby: LobbyHub): void {
    this.lobby = lobby;
  }

  open(socket: WebSocket, request?: IncomingMessage): void {
    if (this.draining) {
      socket.close(CLOSE.restart, 'server restarting');
      return;
    }
    this.seq += 1;
    // X-Forwarded-For is believed only from TRUSTED_PROXIES: anyone can write it.
    const remote = clientAddress(
      request?.socket.remoteAddress,
      request?.headers['x-forwarded-for'],
      this.config.trustedProxies,
    );
    const conn = new Connection(
      connectionId(this.config.gatewayId, this.seq),
      socket,
      this.config.rateLimit,
      this.clock.now(),
      remote,
      request?.socket ? { tcp: request.socket, turn: this.turnWrites } : null,
    );
    this.connections.add(conn);
    this.metrics.openSockets.set(this.connections.size);
    conn.helloTimer = setTimeout(() => {
      if (conn.player === null) {
        this.logger.info({ conn: conn.id }, 'socket closed: no hello in time');
        conn.close(CLOSE.policy, 'hello expected');
      }
    }, this.config.helloTimeoutMs);
    conn.helloTimer.unref();
    socket.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      try {
        this.onFrame(conn, data, isBinary);
      } catch (error) {
        this.logger.error({ err: error, conn: conn.id }, 'frame handler failed');
        this.refuse(conn, null, 'INTERNAL', 'Something went wrong on the server.');
      }
    });
    // ws answers no ping by itself (autoPong: false): control frames take tokens like any frame.
    socket.on('ping', (data: Buffer) => {
      try {
        this.onPing(conn, data);
      } catch (error) {
        this.logger.error({ err: error, conn: conn.id }, 'ping handler failed');
      }
    });
    socket.on('pong', () => {
      try {
        this.onPong(conn);
      } catch (error) {
        this.logger.error({ err: error, conn: conn.id }, 'pong handler failed');
      }
    });
    socket.on('close', (code: number) => {
      try {
        this.onClose(conn, code);
      } catch (error) {
        this.logger.error({ err: error, conn: conn.id }, 'close handler failed');
      }
    });
    socket.on('error', (error: Error) => {
      this.logger.debug({ conn: conn.id, err: error.message }, 'socket error');
    });
    this.logger.info({ conn: conn.id, remote, open: this.connections.size }, 'socket opened');
  }

  private onPing(conn: Connection, data: Buffer): void {
    if (conn.closing) return;
    const now = this.clock.now();
    conn.lastHeardAt = now;
    if (!conn.bucket.take(now)) {
      this.rateLimited(conn, now);
      return;
    }
    conn.pong(data);
  }

  private onPong(conn: Connection): void {
    if (conn.closing) return;
    const now = this.clock.now();
    conn.pingSentAt = null;
    conn.lastHeardAt = now;
    // Unasked pongs are frames too.
    if (!conn.bucket.take(now)) this.rateLimited(conn, now);
  }

  private checkLiveness(): void {
    const now = this.clock.now();
    for (const conn of this.connections) {
      if (conn.closing) continue;
      if (conn.pingSentAt !== null) {
        if (now - conn.pingSentAt < this.config.pongTimeoutMs) continue;
        this.logger.info(
          { conn: conn.id, player: conn.player?.id, waitedMs: now - conn.pingSentAt },
          'socket dropped: no pong in time',
        );
        conn.terminate();
      } else if (now - conn.lastHeardAt >= this.config.pingIntervalMs) {
        conn.ping(now);
      }
    }
  }

  private onFrame(conn: Connection, data: WebSocket.RawData, isBinary: boolean): void {
    // A socket that is being closed is not read any more: a flood goes on costing nothing, not even a log line.
    if (conn.closing) return;
    const now = this.clock.now();
    // Alive: its heartbeat ping can wait (at human pace most seated sockets are never pinged).
    conn.lastHeardAt = now;
    if (!conn.bucket.take(now)) {
      this.rateLimited(conn, now);
      return;
    }
    if (isBinary) {
      this.refuse(conn, null, 'INVALID_MESSAGE', 'Frames are JSON text; binary frames are refused.');
      return;
    }
    const buffer = Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.isBuffer(data)
        ? data
        : Buffer.from(data);
    if (buffer.length > MAX_FRAME_BYTES) {
      this.refuse(conn, null, 'FRAME_TOO_LARGE', `A frame may hold at most ${MAX_FRAME_BYTES} bytes.`);
      return;
    }
    const parsed = parseClientFrame(buffer.toString('utf8'));
    if (!parsed.ok) {
      this.refuse(conn, parsed.error.id, parsed.error.code, parsed.error.message);
      return;
    }
    const message = parsed.value;
    // Talk never becomes an intent: it goes to the table's chat, beside the game (decision 0020).
    if (isTalkMessage(message)) {
      void this.talk(conn, message);
      return;
    }
    switch (message.type) {
      case 'ping':
        conn.send({ type: 'pong', id: message.id ?? null, serverTime: now });
        return;
      case 'hello':
        this.hello(conn, message.token, now);
        return;
      case 'lobby':
        if (!this.lobby) this.refuse(conn, message.id, 'UNAVAILABLE', 'This gateway has no lobby.');
        else
          void this.lobby.subscribe(conn, message.id, message.on).catch((error: unknown) => {
            this.logger.error({ err: error, conn: conn.id }, 'lobby handler failed');
            this.refuse(conn, message.id, 'INTERNAL', 'Something went wrong on the server.');
          });
        return;
      case 'quickPlay':
        // Seated with this socket's connection; then bound to the seat exactly as a join binds it.
        if (!this.lobby) this.refuse(conn, message.id, 'UNAVAILABLE', 'This gateway has no lobby.');
        else
          void this.lobby
            .quickPlay(conn, message)
            .then((tableId) =>
              tableId === null
                ? undefined
                : this.intent(conn, { type: 'join', id: message.id, table: tableId }),
            )
            .catch((error: unknown) => {
              this.logger.error({ err: error, conn: conn.id }, 'quick play failed');
              this.refuse(conn, message.id, 'INTERNAL', 'Something went wrong on the server.');
            });
        return;
      default:
        // The trace of an intent starts here; its envelope carries it on (traceparent).
        void withSpan(
          `ws.intent ${message.type}`,
          (span) => {
            span?.setAttributes({ 'dominoes.connection': conn.id, 'dominoes.player': conn.player?.id ?? '' });
            return this.intent(conn, message);
          },
          { kind: SpanKind.SERVER },
        ).catch((error: unknown) => {
          this.logger.error({ err: error, conn: conn.id }, 'intent handler failed');
          this.refuse(conn, message.id, 'INTERNAL', 'Something went wrong on the server.');
        });
    }
  }

  private rateLimited(conn: Connection, now: number): void {
    this.metrics.framesRefused.inc({ code: 'RATE_LIMITED' });
    if (now - conn.abuseWindowStart > ABUSE_WINDOW_MS) {
      conn.abuseWindowStart = now;
      conn.abuseCount = 0;
    }
    conn.abuseCount += 1;
    if (conn.abuseCount >= this.config.rateLimit.abuseLimit) {
      this.logger.warn(
        { conn: conn.id, player: conn.player?.id, refused: conn.abuseCount },
        'socket closed: frame flood',
      );
      conn.close(CLOSE.policy, 'too many frames');
      return;
    }
    if (now - conn.lastRateNotice >= RATE_NOTICE_INTERVAL_MS) {
      conn.lastRateNotice = now;
      this.logger.info({ conn: conn.id, player: conn.player?.id }, 'frames refused: RATE_LIMITED');
      conn.send({ type: 'error', id: null, code: 'RATE_LIMITED', message: 'Too many frames; slow down.' });
    }
  }

  private refuse(conn: Connection, id: string | null, code: ErrorCode, message: string): void {
    this.metrics.framesRefused.inc({ code });
    const now = this.clock.now();
    if (now - conn.lastRefusalLog >= REFUSAL_LOG_INTERVAL_MS) {
      conn.lastRefusalLog = now;
      this.logger.info({ conn: conn.id, player: conn.player?.id, code }, 'frame refused');
    }
    // Only a well-formed id is echoed: the error frame itself must pass ServerMessageSchema.
    conn.send({
      type: 'error',
      id: id !== null && IntentIdSchema.safeParse(id).success ? id : null,
      code,
      message,
    });
  }

  private hello(conn: Connection, token: string, now: number): void {
    if (conn.player !== null) {
      this.refuse(conn, null, 'ALREADY_AUTHENTICATED', 'This socket has said hello already.');
      return;
    }
    const check = verifyToken(token, this.config.tokenSecret, now);
    if (!check.ok) {
      this.refuse(conn, null, check.code, check.message);
      return;
    }
    conn.player = { id: check.claims.pid, name: check.claims.name };
    if (conn.helloTimer) clearTimeout(conn.helloTimer);
    conn.helloTimer = null;
    conn.send({ type: 'welcome', playerId: conn.player.id, name: conn.player.name, serverTime: now });
    this.logger.info({ conn: conn.id, player: conn.player.id }, 'socket authenticated');
    this.limitSockets(conn);
  }

  /**
   * One player holds at most WS_MAX_SOCKETS_PER_PLAYER sockets, on all gateways together (every one
   * is listed on its seat, and gets every view): one more closes the oldest, which is told why.
   */
  private limitSockets(conn: Connection): void {
    const playerId = conn.player!.id;
    let sockets = this.byPlayer.get(playerId);
    if (!sockets) {
      sockets = new Set();
      this.byPlayer.set(playerId, sockets);
    }
    sockets.add(conn);
    // This gateway's own sockets are counted at once; all gateways' through Redis, just after.
    for (const oldest of sockets) {
      if (sockets.size <= this.config.maxSocketsPerPlayer) break;
      this.evict(oldest);
    }
    const everywhere = this.everywhere;
    if (!everywhere) return;
    everywhere
      .added(playerId, conn.id, this.clock.now())
      .then(async (over) => {
        for (const id of over) {
          const local = [...(this.byPlayer.get(playerId) ?? [])].find((c) => c.id === id);
          if (local) this.evict(local);
        }
        await everywhere.evict(playerId, over);
      })
      .catch((error: unknown) =>
        this.logger.warn({ err: error, conn: conn.id }, 'sockets of a player not counted across gateways'),
      );
  }

  /** Closes one of this gateway's sockets whose player holds too many (asked here or by another gateway). */
  evictSocket(connectionId: string): void {
    const conn = [...this.connections].find((c) => c.id === connectionId);
    if (conn && conn.player) this.evict(conn);
  }

  private evict(oldest: Connection): void {
    if (oldest.closing) return;
    this.byPlayer.get(oldest.player!.id)?.delete(oldest);
    this.metrics.framesRefused.inc({ code: 'TOO_MANY_SOCKETS' });
    this.logger.info(
      { conn: oldest.id, player: oldest.player?.id, max: this.config.maxSocketsPerPlayer },
      'socket closed: too many sockets for one player',
    );
    oldest.send({
      type: 'error',
      id: null,
      code: 'TOO_MANY_SOCKETS',
      message: `At most ${this.config.maxSocketsPerPlayer} sockets per player: this one, the oldest, is closed.`,
    });
    oldest.close(CLOSE.policy, 'too many sockets for one player');
  }

  private forgetSocket(conn: Connection): void {
    if (conn.player === null) return;
    void this.everywhere?.removed(conn.player.id, conn.id).catch(() => undefined);
    const sockets = this.byPlayer.get(conn.player.id);
    if (!sockets) return;
    sockets.delete(conn);
    if (sockets.size === 0) this.byPlayer.delete(conn.player.id);
  }

  /**
   * The asker's own view, from the reply to its sync (or to a join that changed nothing): sent on
   * this socket alone, while it is still bound to that seat, and never older than what it has.
   */
  private sendOwnView(
    conn: Connection,
    tableId: string,
    reply: { seat: number | null; version: number | null; view?: string },
  ): void {
    const binding = conn.binding;
    if (reply.view === undefined || reply.version === null || binding === null) return;
    if (binding.tableId !== tableId || binding.seat !== reply.seat) return;
    if (reply.version < conn.lastVersion) return;
    conn.lastVersion = reply.version;
    conn.sendText(viewFrameText(reply.version, this.clock.now(), reply.view));
  }

  private envelope(
    conn: Connection,
    intentId: string,
    tableId: string,
    intent: TableIntent,
    withReply: boolean,
  ): IntentEnvelope {
    return {
      intentId,
      tableId,
      player: conn.player ? { id: conn.player.id, name: conn.player.name } : null,
      connectionId: conn.id,
      replyTo: withReply ? this.intents.replyChannel : null,
      sentAt: this.clock.now(),
      intent,
    };
  }

  /** A talk frame: checked and published by the chat relay, answered with `ack` (version null) or `error`. */
  private async talk(conn: Connection, message: TalkMessage): Promise<void> {
    try {
      const outcome = this.chat
        ? await this.chat.say(conn, message)
        : ({ ok: false, code: 'NOT_ALLOWED_NOW', message: 'Chat is not available here.' } as const);
      if (!outcome.ok) this.refuse(conn, message.id, outcome.code, outcome.message);
      else conn.send({ type: 'ack', id: message.id, version: null });
    } catch (error) {
      this.logger.error({ err: error, conn: conn.id }, 'talk handler failed');
      this.refuse(conn, message.id, 'INTERNAL', 'Something went wrong on the server.');
    }
  }

  private async intent(conn: Connection, message: Exclude<ClientIntent, TalkMessage>): Promise<void> {
    if (conn.player === null) {
      this.refuse(conn, message.id, 'UNAUTHENTICATED', 'Say hello with your token first.');
      return;
    }
    if (
      message.type === 'watch' ||
      message.type === 'unwatch' ||
      (message.type === 'sync' && conn.watching)
    ) {
      this.watch(conn, message);
      return;
    }
    if (conn.watching !== null && message.type !== 'join') {
      this.refuse(
        conn,
        message.id,
        'SPECTATORS_CANNOT_ACT',
        'You are watching this table: spectators cannot act.',
      );
      return;
    }
    let tableId: string;
    let intent: TableIntent;
    if (message.type === 'join') {
      tableId = message.table;
      intent = { kind: 'join' };
      // A socket watches one table. Its binding changes only once the new join succeeded (bind()
      // then ends the old one first); a refused join leaves it where it was.
    } else {
      if (conn.binding === null) {
        this.refuse(conn, message.id, 'NOT_SEATED', 'Join a table first.');
        return;
      }
      tableId = conn.binding.tableId;
      intent = toTableIntent(message, conn.binding.seat);
    }
    const outcome = await this.intents.request(
      this.envelope(conn, intentIds.player(conn.player.id, message.id), tableId, intent, true),
    );
    if (!outcome.ok) {
      this.logger.info(
        { conn: conn.id, player: conn.player.id, tableId, type: message.type, code: outcome.code },
        'intent refused',
      );
      conn.send({ type: 'error', id: message.id, code: outcome.code, message: outcome.message });
      return;
    }
    const { reply } = outcome;
    if (message.type === 'join') {
      if (conn.closed) {
        // The socket went away while joining: the table counted it as connected, so say it is not.
        if (reply.seat !== null)
          void this.intents.dispatch(
            this.envelope(
              conn,
              intentIds.closed(conn.id),
              tableId,
              { kind: 'presence', connected: false },
              false,
            ),
          );
        return;
      }
      // A socket that takes a seat stops watching.
      if (reply.seat !== null) this.watching.stop(conn);
      if (reply.seat !== null) await this.bind(conn, tableId, reply.seat);
      this.sendOwnView(conn, tableId, reply);
    } else if (message.type === 'leave') {
      // The seat may be given to someone else now: this socket stops receiving its views.
      this.unbind(conn, null);
    } else {
      this.sendOwnView(conn, tableId, reply);
    }
    conn.send({ type: 'ack', id: message.id, version: reply.version });
  }

  private async bind(conn: Connection, tableId: string, seat: number): Promise<void> {
    const current = conn.binding;
    if (current && current.tableId === tableId && current.seat === seat) return;
    if (current) this.unbind(conn, current.tableId === tableId ? null : 'left');
    const binding = { tableId, seat, key: SeatRouter.seatKey(tableId, seat) };
    conn.bindings += 1;
    conn.binding = binding;
    conn.lastVersion = -1;
    await this.router.add(conn, binding);
    void this.chat?.follow(conn, tableId);
    this.logger.info({ conn: conn.id, player: conn.player?.id, tableId, seat }, 'socket bound to seat');
    // The join's own views may have been published before this subscription existed: ask for the
    // seat's view again. It comes in the reply, for this socket alone (the seat's other sockets
    // have it already).
    conn.viewAsked = false;
    this.askView(conn);
  }

  /**
   * Asks the table for the whole view of the socket's seat, for this socket alone (it comes in the
   * reply): after a bind, and when a change does not fit the view the socket was sent last (a view
   * published before the subscription, or lost on the way: decision 0036). One ask at a time.
   */
  private askView(conn: Connection): void {
    const binding = conn.binding;
    if (binding === null || conn.closed || conn.viewAsked) return;
    conn.viewAsked = true;
    conn.viewAsks += 1;
    const { tableId, key } = binding;
    void this.intents
      .request(this.envelope(conn, intentIds.sync(conn.id, conn.viewAsks), tableId, { kind: 'sync' }, true))
      .then((outcome) => {
        if (outcome.ok && conn.binding?.key === key) this.sendOwnView(conn, tableId, outcome.reply);
      })
      .catch((error: unknown) =>
        this.logger.error({ err: error, conn: conn.id }, "asking for the seat's view failed"),
      )
      .finally(() => {
        if (conn.binding?.key === key) conn.viewAsked = false;
      });
  }

  /** `watch`, `unwatch`, or a watching socket's `sync`: a watching socket leaves its seat first. */
  private watch(
    conn: Connection,
    message: Extract<ClientIntent, { type: 'watch' | 'unwatch' | 'sync' }>,
  ): void {
    if (message.type === 'unwatch') {
      this.watching.stop(conn);
      this.chat?.unfollow(conn);
      conn.send({ type: 'ack', id: message.id, version: null });
      return;
    }
    this.unbind(conn, 'left');
    const table = message.type === 'watch' ? message.table : conn.watching!.tableId;
    this.watching
      .watch(conn, message.id, table, message.type === 'sync')
      // A spectator reads the table's chat (decision 0020), once the watch holds.
      .then(() => {
        if (conn.watching?.tableId === table) void this.chat?.follow(conn, table);
      })
      .catch((error: unknown) => {
        this.logger.error({ err: error, conn: conn.id }, 'watch failed');
        this.refuse(conn, message.id, 'INTERNAL', 'Something went wrong on the server.');
      });
  }

  /** Ends the socket's binding; `presence` tells the old table this socket is gone from it. */
  private unbind(conn: Connection, presence: 'left' | 'closed' | null): void {
    const binding = conn.binding;
    if (!binding) return;
    conn.binding = null;
    conn.lastVersion = -1;
    this.router.remove(conn, binding);
    this.chat?.unfollow(conn, binding.tableId);
    if (presence !== null && conn.player) {
      const intentId =
        presence === 'closed' ? intentIds.closed(conn.id) : intentIds.left(conn.id, conn.bindings);
      void this.intents.dispatch(
        this.envelope(conn, intentId, binding.tableId, { kind: 'presence', connected: false }, false),
      );
    }
  }

  private onClose(conn: Connection, code: number): void {
    if (conn.closed) return;
    conn.closed = true;
    conn.disposed();
    const tableId = conn.binding?.tableId;
    this.unbind(conn, 'closed');
    this.chat?.unfollow(conn);
    this.watching.stop(conn);
    this.lobby?.drop(conn);
    this.forgetSocket(conn);
    this.connections.delete(conn);
    this.metrics.openSockets.set(this.connections.size);
    this.logger.info(
      {
        conn: conn.id,
        player: conn.player?.id,
        tableId,
        code,
        seconds: Math.round((this.clock.now() - conn.openedAt) / 1000),
        open: this.connections.size,
      },
      'socket closed',
    );
  }

  /**
   * Shutdown: no new sockets; every socket is told to reconnect (to any gateway) and closed with
   * 1012; the presence notes of the closed sockets are flushed to Redis.
   */
  async drain(afterMs = 1000): Promise<void> {
    this.draining = true;
    clearInterval(this.heartbeat);
    const count = this.connections.size;
    for (const conn of [...this.connections]) {
      conn.send({ type: 'reconnect', afterMs });
      conn.close(CLOSE.restart, 'server restarting');
    }
    // Close events arrive once the close handshake is done; a peer that does not answer is cut.
    for (let i = 0; i < 100 && this.connections.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
    for (const conn of [...this.connections]) {
      conn.terminate();
      this.onClose(conn, 1006);
    }
    await this.intents.flush(3000);
    await this.everywhere?.close();
    this.logger.info({ closed: count }, 'sockets drained');
  }
}

/** A bound socket's intent; a move is the rules' action of the seat the socket is bound to. */
function toTableIntent(
  message: Exclude<ClientIntent, { type: 'join' | 'watch' | 'unwatch' } | TalkMessage>,
  seat: number,
): TableIntent {
  if (isActionMessage(message)) return { kind: 'action', action: actionOfMessage(message, seat) };
  switch (message.type) {
    case 'autoPass':
      return { kind: 'autoPass', on: message.on };
    case 'leave':
    case 'startRound':
    case 'newMatch':
    case 'sync':
      return { kind: message.type };
  }
}
