/** The TCP socket under a WebSocket (the upgrade request's `socket`): what can be corked. */
export interface Corkable {
  cork(): void;
  uncork(): void;
  readonly destroyed?: boolean;
}

/**
 * Holds back a socket's writes for the rest of the current turn of the event loop, then lets them go
 * in one write (issue 14). A change's views and replies reach the gateway together (the table-service
 * issues them in one Redis write), so the acting player's `ack` and `view` frames, which arrive on two
 * Redis connections, leave in one `writev` instead of two. Uncorked in `setImmediate`, after the poll
 * phase that delivered them: a frame waits microseconds, never for another event.
 */
export class TurnWrites {
  private held = new Set<Corkable>();
  private scheduled = false;
  private readonly flush = (): void => {
    this.scheduled = false;
    const held = this.held;
    this.held = new Set();
    for (const socket of held) {
      try {
        socket.uncork();
      } catch {
        // A socket destroyed meanwhile has nothing left to write.
      }
    }
  };

  /** Corks `socket` until the end of this turn, once: its writes until then go out together. */
  hold(socket: Corkable): void {
    if (this.held.has(socket) || socket.destroyed) return;
    socket.cork();
    this.held.add(socket);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** Sockets held now (for tests). */
  get size(): number {
    return this.held.size;
  }
}
