import type WebSocket from 'ws';
import type { ServerMessage } from '@dominoes/protocol';
import { TokenBucket } from './token-bucket';

export interface SeatBinding {
  readonly tableId: string;
  readonly seat: number;
  readonly channel: string;
}

/** Above this many bytes queued for a socket, it is a reader that cannot keep up: it is closed. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** One open WebSocket and what the gateway knows of it. */
export class Connection {
  player: { readonly id: string; readonly name: string } | null = null;
  binding: SeatBinding | null = null;
  /** The highest view version sent on this socket; lower ones are skipped. */
  lastVersion = -1;
  /** Counts bindings, to name the intents that end one. */
  bindings = 0;
  closed = false;
  helloTimer: NodeJS.Timeout | null = null;
  lastRateNotice = Number.NEGATIVE_INFINITY;
  abuseWindowStart = 0;
  abuseCount = 0;
  readonly bucket: TokenBucket;
  readonly openedAt: number;

  constructor(
    readonly id: string,
    readonly socket: WebSocket,
    rate: { perSecond: number; burst: number },
    now: number,
    readonly remote: string,
  ) {
    this.bucket = new TokenBucket(rate.perSecond, rate.burst, now);
    this.openedAt = now;
  }

  get open(): boolean {
    return !this.closed && this.socket.readyState === this.socket.OPEN;
  }

  send(frame: ServerMessage): void {
    this.sendText(JSON.stringify(frame));
  }

  sendText(text: string): void {
    if (!this.open) return;
    if (this.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.close(1008, 'too slow');
      return;
    }
    try {
      this.socket.send(text);
    } catch {
      // The socket went away between the check and the send; its close handler cleans up.
    }
  }

  close(code: number, reason: string): void {
    try {
      if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING) {
        this.socket.close(code, reason);
      }
    } catch {
      this.socket.terminate();
    }
  }
}
