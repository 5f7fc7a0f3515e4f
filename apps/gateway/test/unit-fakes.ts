/**
 * What the gateway's unit suites (`*.unit.test.ts`) share: a plain fake of a `ws` socket (the only
 * thing faked: Redis is real, REDIS_URL), a `Connection` on it, a clock the test moves, and real
 * Redis connections closed after the suite.
 */
import type WebSocket from 'ws';
import { createRedis, type Clock, type Redis } from '@dominoes/platform';
import { Connection } from '../src/ws/connection';
import { REDIS_URL } from './support';

/** The `ws` socket's states, as numbers (`WebSocket.CONNECTING` ...). */
export const SOCKET_STATE = { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 } as const;

/** A `ws` socket that records what the gateway does with it. */
export class FakeSocket {
  readonly CONNECTING = SOCKET_STATE.CONNECTING;
  readonly OPEN = SOCKET_STATE.OPEN;
  readyState: number = SOCKET_STATE.OPEN;
  bufferedAmount = 0;
  readonly sent: string[] = [];
  readonly pongs: Buffer[] = [];
  pings = 0;
  readonly closes: { code: number; reason: string }[] = [];
  terminated = 0;
  /** Which calls throw (a socket gone between the check and the call). */
  readonly throwing = new Set<'send' | 'pong' | 'ping' | 'close'>();

  send(text: string): void {
    this.fail('send');
    this.sent.push(text);
  }
  pong(data: Buffer): void {
    this.fail('pong');
    this.pongs.push(data);
  }
  ping(): void {
    this.fail('ping');
    this.pings += 1;
  }
  close(code: number, reason: string): void {
    this.fail('close');
    this.closes.push({ code, reason });
  }
  terminate(): void {
    this.terminated += 1;
  }
  /** The frames sent, parsed. */
  frames(): Record<string, unknown>[] {
    return this.sent.map((text) => JSON.parse(text) as Record<string, unknown>);
  }
  private fail(call: 'send' | 'pong' | 'ping' | 'close'): void {
    if (this.throwing.has(call)) throw new Error(`${call} on a socket that went away`);
  }
}

/** A connection on a fake socket; `player` set as a hello would. */
export function fakeConnection(
  id: string,
  player: { id: string; name: string } | null = null,
  now = 0,
): { conn: Connection; socket: FakeSocket } {
  const socket = new FakeSocket();
  const conn = new Connection(
    id,
    socket as unknown as WebSocket,
    { perSecond: 10, burst: 2 },
    now,
    '192.0.2.1',
  );
  conn.player = player;
  return { conn, socket };
}

/** A clock that moves only when the test says. */
export class TestClock implements Clock {
  constructor(public t = 1_000_000) {}
  now(): number {
    return this.t;
  }
}

/** Real Redis connections, each quit (or cut) by `closeAll` in the suite's `afterAll`. */
export class RedisConnections {
  private readonly clients: Redis[] = [];
  private readonly quiet = { warn: () => undefined, info: () => undefined };

  open(name: string): Redis {
    const client = createRedis(REDIS_URL, name, {}, this.quiet);
    this.clients.push(client);
    return client;
  }

  async closeAll(): Promise<void> {
    for (const client of this.clients) {
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else if (client.status !== 'end') client.disconnect();
    }
  }
}
