/** What `writeTogether` needs of a socket (a net.Socket or a TLS socket). */
export interface TickWritable {
  write(...args: never[]): boolean;
  cork(): void;
  uncork(): void;
}

/**
 * How long a socket holds its writes back, from the first:
 * - `tick`: to the end of this tick and its promise jobs (`process.nextTick`): what one callback
 *   writes leaves in one write, and waits for nothing else.
 * - `turn`: to the end of this turn of the event loop (`setImmediate`, after the poll phase): what
 *   all the callbacks of one poll phase write (many sockets' frames) leaves in one write.
 */
export type WriteWindow = 'tick' | 'turn';

const together = new WeakSet<object>();

/**
 * Makes the writes `socket` gets within one `window` leave in one write: the first write corks it,
 * and the end of the window uncorks it, so the writes buffered meanwhile go out in one `writev`.
 *
 * Redis connections use it instead of ioredis's auto-pipelining (issue 14, decision 0033): the same
 * one write per tick, without a Pipeline object per tick, whose commands' RESP strings (a change's
 * four views among them) V8 promoted to the old generation: a quarter of the table-service's scavenge
 * work and most of what its major collections freed.
 */
export function writeTogether(socket: TickWritable, window: WriteWindow = 'tick'): void {
  if (together.has(socket)) return;
  together.add(socket);
  const write = socket.write;
  let held = false;
  const release = (): void => {
    held = false;
    socket.uncork();
  };
  socket.write = function writeInThisWindow(this: TickWritable, ...args: never[]): boolean {
    if (!held) {
      held = true;
      socket.cork();
      if (window === 'tick') process.nextTick(release);
      else setImmediate(release);
    }
    return write.apply(socket, args);
  };
}
