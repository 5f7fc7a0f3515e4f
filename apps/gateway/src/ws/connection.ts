import type WebSocket from 'ws';
import type { ServerMessage } from '@dominoes/protocol';
import { TokenBucket } from './token-bucket';
import type { Corkable, TurnWrites } from './turn-writes';

export interface SeatBinding {
  readonly tableId: string;
  readonly seat: number;
  /** The seat's key among the gateway's bindings (`SeatRouter.seatKey`): one per table and seat. */
  readonly key: string;
}

/** Above this many bytes queued for a socket, it is a reader that cannot keep up: it is closed. */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** A socket asked to close that has not finished the close handshake by then is cut. */
const CLOSE_GRACE_MS = 2_000;

/** One open WebSocket and what the gateway knows of it. */
export class Connection {
  player: { readonly id: string; readonly name: string } | null = null;
  binding: SeatBinding | null = null;
  /** The table this socket watches (decision 0018; never while bound to a seat), and which watch it was. */
  watching: {
    readonly tableId: string;
    /** Which watch asked last (a resync after a Redis reconnection asks again, as a new watch). */
    n: number;
    /** The table-service was asked to count this socket (an unwatch is sent only then). */
    asked: boolean;
  } | null = null;
  /** Counts watches, to name their intents. */
  watches = 0;
  /**
   * The version of the view last sent on this socket (whole or by its change); lower ones are
   * skipped, and a change goes out only on top of this one (decision 0036).
   */
  lastVersion = -1;
  /** The seat's whole view has been asked for this socket and has not come yet. */
  viewAsked = false;
  /** Counts the gateway's asks for the seat's whole view, to name their intents. */
  viewAsks = 0;
  /** Counts bindings, to name the intents that end one. */
  bindings = 0;
  /** The close event has been handled. */
  closed = false;
  /** The gateway has asked it to close (or cut it): nothing it sends is read any more. */
  closing = false;
  helloTimer: NodeJS.Timeout | null = null;
  private cutTimer: NodeJS.Timeout | null = null;
  lastRateNotice = Number.NEGATIVE_INFINITY;
  lastRefusalLog = Number.NEGATIVE_INFINITY;
  abuseWindowStart = 0;
  abuseCount = 0;
  /** When the gateway's last ping went out unanswered; null once its pong came. */
  pingSentAt: number | null = null;
  /**
   * The last sign of life the heartbeat counts: the socket's opening, its last pong, or the last frame
   * it sent (a socket that talks is pinged only once it has been silent for WS_PING_INTERVAL_MS).
   */
  lastHeardAt: number;
  readonly bucket: TokenBucket;
  readonly openedAt: number;

  constructor(
    readonly id: string,
    readonly socket: WebSocket,
    rate: { perSecond: number; burst: number },
    now: number,
    readonly remote: string,
    /** The TCP socket under `socket` and the gateway's TurnWrites: a turn's frames leave in one write. */
    private readonly batching: { readonly tcp: Corkable; readonly turn: TurnWrites } | null = null,
  ) {
    this.bucket = new TokenBucket(rate.perSecond, rate.burst, now);
    this.openedAt = now;
    this.lastHeardAt = now;
  }

  get open(): boolean {
    return !this.closed && !this.closing && this.socket.readyState === this.socket.OPEN;
  }

  /** True when more than MAX_BUFFERED_BYTES wait to be sent: the peer does not read. */
  get backedUp(): boolean {
    return this.socket.bufferedAmount > MAX_BUFFERED_BYTES;
  }

  send(frame: ServerMessage): void {
    this.sendText(JSON.stringify(frame));
  }

  sendText(text: string): void {
    if (!this.open) return;
    if (this.backedUp) {
      this.close(1008, 'too slow');
      return;
    }
    try {
      if (this.batching) this.batching.turn.hold(this.batching.tcp);
      this.socket.send(text);
    } catch {
      // The socket went away between the check and the send; its close handler cleans up.
    }
  }

  /** Answers the peer's ping (ws runs with autoPong off, so that pings go through the rate limit). */
  pong(data: Buffer): void {
    if (!this.open) return;
    if (this.backedUp) {
      this.close(1008, 'too slow');
      return;
    }
    try {
      this.socket.pong(data);
    } catch {
      // As in sendText.
    }
  }

  /** The gateway's heartbeat ping. */
  ping(now: number): void {
    if (!this.open) return;
    if (this.backedUp) {
      this.close(1008, 'too slow');
      return;
    }
    this.pingSentAt = now;
    try {
      this.socket.ping();
    } catch {
      // As in sendText.
    }
  }

  /** Starts the close handshake, once; a peer that does not finish it within a grace is cut. */
  close(code: number, reason: string): void {
    if (this.closing || this.closed) return;
    this.closing = true;
    try {
      if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING) {
        this.socket.close(code, reason);
      }
    } catch {
      this.socket.terminate();
    }
    this.cutTimer = setTimeout(() => this.socket.terminate(), CLOSE_GRACE_MS);
    this.cutTimer.unref();
  }

  /** Cuts the TCP connection at once (a peer that stopped answering). */
  terminate(): void {
    this.closing = true;
    this.socket.terminate();
  }

  /** The close event came: no timer of this socket is left. */
  disposed(): void {
    if (this.helloTimer) clearTimeout(this.helloTimer);
    if (this.cutTimer) clearTimeout(this.cutTimer);
    this.helloTimer = null;
    this.cutTimer = null;
  }
}
