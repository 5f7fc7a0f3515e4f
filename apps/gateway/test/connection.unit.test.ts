import type WebSocket from 'ws';
import { Connection, MAX_BUFFERED_BYTES } from '../src/ws/connection';
import { TurnWrites } from '../src/ws/turn-writes';
import { FakeSocket, fakeConnection, SOCKET_STATE } from './unit-fakes';

describe('Connection (one socket, on a fake ws socket)', () => {
  afterEach(() => jest.useRealTimers());

  it('starts with its rate bucket full, its open time as its last sign of life, and nothing bound', () => {
    const { conn } = fakeConnection('gw-1:1', null, 5_000);
    expect(conn.id).toBe('gw-1:1');
    expect(conn.remote).toBe('192.0.2.1');
    expect(conn.openedAt).toBe(5_000);
    expect(conn.lastHeardAt).toBe(5_000);
    expect(conn.pingSentAt).toBeNull();
    expect([conn.binding, conn.watching, conn.player]).toEqual([null, null, null]);
    expect([conn.lastVersion, conn.watches, conn.bindings]).toEqual([-1, 0, 0]);
    expect([conn.closed, conn.closing]).toEqual([false, false]);
    expect([conn.lastRateNotice, conn.lastRefusalLog]).toEqual([-Infinity, -Infinity]);
    // burst 2, 10 per second: two frames at once, the third 100 ms later.
    expect([conn.bucket.take(5_000), conn.bucket.take(5_000), conn.bucket.take(5_000)]).toEqual([
      true,
      true,
      false,
    ]);
    expect(conn.bucket.take(5_100)).toBe(true);
  });

  it('is open only while its socket is OPEN and the gateway neither closed nor is closing it', () => {
    const { conn, socket } = fakeConnection('c');
    expect(conn.open).toBe(true);
    socket.readyState = SOCKET_STATE.CLOSING;
    expect(conn.open).toBe(false);
    socket.readyState = SOCKET_STATE.OPEN;
    conn.closed = true;
    expect(conn.open).toBe(false);
    conn.closed = false;
    conn.closing = true;
    expect(conn.open).toBe(false);
  });

  it('sends a frame as its JSON text, and text as it is', () => {
    const { conn, socket } = fakeConnection('c');
    conn.send({ type: 'ack', id: 'x', version: 3 });
    conn.sendText('{"raw":true}');
    expect(socket.sent).toEqual(['{"type":"ack","id":"x","version":3}', '{"raw":true}']);
  });

  it('with its TCP socket given, sends each frame with that socket corked until the turn of the event loop is over (issue 14)', async () => {
    const socket = new FakeSocket();
    let corked = 0;
    const tcp = { cork: () => void corked++, uncork: () => void corked-- };
    const conn = new Connection('c', socket as unknown as WebSocket, { perSecond: 10, burst: 2 }, 0, 'r', {
      tcp,
      turn: new TurnWrites(),
    });
    const seen: number[] = [];
    const send = socket.send.bind(socket);
    socket.send = (text: string) => {
      seen.push(corked);
      send(text);
    };
    conn.sendText('{"type":"view"}');
    conn.send({ type: 'ack', id: 'x', version: 3 });
    expect(seen).toEqual([1, 1]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(corked).toBe(0);
    expect(socket.sent).toHaveLength(2);
  });

  it('sends nothing on a socket that is not open', () => {
    const { conn, socket } = fakeConnection('c');
    socket.readyState = SOCKET_STATE.CLOSED;
    conn.sendText('a');
    conn.pong(Buffer.from('p'));
    conn.ping(7);
    expect(socket.sent).toEqual([]);
    expect(socket.pongs).toEqual([]);
    expect(socket.pings).toBe(0);
    expect(conn.pingSentAt).toBeNull();
  });

  it('a reader with more than MAX_BUFFERED_BYTES queued is closed with 1008 "too slow" instead of sent to (exactly the limit is still sent to)', () => {
    for (const call of ['sendText', 'pong', 'ping'] as const) {
      const { conn, socket } = fakeConnection('c');
      socket.bufferedAmount = MAX_BUFFERED_BYTES;
      const act = () =>
        call === 'sendText'
          ? conn.sendText('t')
          : call === 'pong'
            ? conn.pong(Buffer.from('d'))
            : conn.ping(9);
      act();
      expect(socket.closes).toEqual([]);
      socket.bufferedAmount = MAX_BUFFERED_BYTES + 1;
      expect(conn.backedUp).toBe(true);
      act();
      expect(socket.closes).toEqual([{ code: 1008, reason: 'too slow' }]);
      expect(conn.closing).toBe(true);
      expect(socket.sent.length + socket.pongs.length + socket.pings).toBe(1);
    }
    expect(MAX_BUFFERED_BYTES).toBe(4 * 1024 * 1024);
  });

  it("answers the peer's ping with its data, and pings with the time it was sent", () => {
    const { conn, socket } = fakeConnection('c');
    conn.pong(Buffer.from('hello'));
    expect(socket.pongs.map((b) => b.toString())).toEqual(['hello']);
    conn.ping(1_234);
    expect(socket.pings).toBe(1);
    expect(conn.pingSentAt).toBe(1_234);
  });

  it('a socket that throws on send, pong or ping (gone meanwhile) does not throw to the caller', () => {
    const { conn, socket } = fakeConnection('c');
    socket.throwing.add('send').add('pong').add('ping');
    expect(() => conn.sendText('x')).not.toThrow();
    expect(() => conn.pong(Buffer.from('x'))).not.toThrow();
    expect(() => conn.ping(5)).not.toThrow();
    expect(conn.pingSentAt).toBe(5);
  });

  it('close starts the handshake once, with its code and reason, and cuts a peer that has not finished it after 2 s', () => {
    jest.useFakeTimers();
    const { conn, socket } = fakeConnection('c');
    conn.close(4000, 'bye');
    conn.close(4001, 'again');
    expect(socket.closes).toEqual([{ code: 4000, reason: 'bye' }]);
    expect(conn.closing).toBe(true);
    expect(conn.open).toBe(false);
    jest.advanceTimersByTime(1_999);
    expect(socket.terminated).toBe(0);
    jest.advanceTimersByTime(1);
    expect(socket.terminated).toBe(1);
  });

  it('close of a socket still CONNECTING asks it to close too; of one CLOSING, only the cut follows', () => {
    jest.useFakeTimers();
    const connecting = fakeConnection('a');
    connecting.socket.readyState = SOCKET_STATE.CONNECTING;
    connecting.conn.close(1001, 'going away');
    expect(connecting.socket.closes).toEqual([{ code: 1001, reason: 'going away' }]);
    const closing = fakeConnection('b');
    closing.socket.readyState = SOCKET_STATE.CLOSING;
    closing.conn.close(1001, 'going away');
    expect(closing.socket.closes).toEqual([]);
    expect(closing.socket.terminated).toBe(0);
    jest.advanceTimersByTime(2_000);
    expect(closing.socket.terminated).toBe(1);
  });

  it('a close that throws cuts the socket at once', () => {
    jest.useFakeTimers();
    const { conn, socket } = fakeConnection('c');
    socket.throwing.add('close');
    conn.close(1000, 'x');
    expect(socket.terminated).toBe(1);
    expect(conn.closing).toBe(true);
  });

  it('close after the close event (closed) does nothing', () => {
    jest.useFakeTimers();
    const { conn, socket } = fakeConnection('c');
    conn.closed = true;
    conn.close(1000, 'x');
    jest.advanceTimersByTime(5_000);
    expect(socket.closes).toEqual([]);
    expect(socket.terminated).toBe(0);
    expect(conn.closing).toBe(false);
  });

  it('terminate cuts at once and marks the socket closing', () => {
    const { conn, socket } = fakeConnection('c');
    conn.terminate();
    expect(socket.terminated).toBe(1);
    expect(conn.closing).toBe(true);
    expect(conn.open).toBe(false);
  });

  it('disposed (the close event came) clears the hello timer and the cut timer: neither fires later', () => {
    jest.useFakeTimers();
    const { conn, socket } = fakeConnection('c');
    let helloFired = false;
    conn.helloTimer = setTimeout(() => (helloFired = true), 100);
    conn.close(1000, 'x');
    conn.disposed();
    expect(conn.helloTimer).toBeNull();
    jest.advanceTimersByTime(10_000);
    expect(helloFired).toBe(false);
    expect(socket.terminated).toBe(0);
  });
});
