import { MAX_FRAME_BYTES } from '@dominoes/protocol';
import { CLOSE, WS_MAX_PAYLOAD } from '../src/ws/socket-hub';
import {
  ANN,
  BOB,
  connId,
  errorFrame,
  hubRig,
  hubSuite,
  type HubRig,
  type HubSocket,
} from './socket-hub-harness';
import { eventually, sleep, waitFor } from './support';

/**
 * The socket hub's own frames, on fake ws sockets (harness): opening, hello, the frame checks, the
 * rate limit, the heartbeat, the per-player socket limit (this gateway's and, on real Redis, all
 * gateways'), closing and draining.
 */
const suite = hubSuite('socket_hub');

/** The socket got exactly these errors (id, code, message), and each code was counted once. */
async function refusedOnceEach(rig: HubRig, socket: HubSocket, errors: [string | null, string, string][]) {
  expect(socket.frames()).toEqual(errors.map(([id, code, message]) => errorFrame(id, code, message)));
  for (const [, code] of errors) expect(await rig.refused(code)).toBe(1);
}
const closedOnce = (socket: HubSocket) => waitFor(() => socket.readyState === 3, 1500, 'the close event');

describe('SocketHub: opening and hello', () => {
  it('exports the close codes and the socket payload limit the gateway uses', async () => {
    expect(CLOSE).toEqual({ normal: 1000, policy: 1008, tooBig: 1009, restart: 1012 });
    expect(WS_MAX_PAYLOAD).toBe(64 * 1024);
  });

  it('an opened socket gets the next connection id from the boot epoch, is counted and logged with its address', async () => {
    const rig = await hubRig(suite);
    expect(rig.hub.epoch).toBe(rig.clock.now());
    rig.open({ remote: '203.0.113.7', forwarded: '198.51.100.1' });
    rig.open();
    expect(rig.hub.size).toBe(2);
    expect(await rig.openSockets()).toBe(2);
    const opened = rig.logged('socket opened');
    expect(opened.map((l) => [l['conn'], l['remote'], l['open']])).toEqual([
      [connId(rig, 1), '203.0.113.7', 1],
      [connId(rig, 2), '', 2],
    ]);
  });

  it('X-Forwarded-For is believed from a trusted proxy only', async () => {
    const rig = await hubRig(suite, { env: { TRUSTED_PROXIES: '203.0.113.7' } });
    rig.open({ remote: '203.0.113.7', forwarded: '198.51.100.1' });
    expect(rig.logged('socket opened')[0]).toMatchObject({ remote: '198.51.100.1' });
  });

  it('a good hello is answered with welcome (player id, name, server time) and logged', async () => {
    const rig = await hubRig(suite);
    const socket = rig.authed(ANN);
    expect(socket.frames()).toEqual([
      { type: 'welcome', playerId: ANN.id, name: ANN.name, serverTime: rig.clock.now() },
    ]);
    expect(rig.logged('socket authenticated')).toEqual([
      expect.objectContaining({ conn: connId(rig, 1), player: ANN.id }),
    ]);
  });

  it('a bad token is refused with TOKEN_INVALID (id null), and the socket stays unauthenticated', async () => {
    const rig = await hubRig(suite);
    const socket = rig.open();
    socket.text({ type: 'hello', token: 'not-a-token' });
    socket.text({ type: 'leave', id: 'l1' });
    await waitFor(() => socket.sent.length === 2);
    await refusedOnceEach(rig, socket, [
      [null, 'TOKEN_INVALID', 'The token is malformed.'],
      ['l1', 'UNAUTHENTICATED', 'Say hello with your token first.'],
    ]);
  });

  it('an expired token is refused with TOKEN_EXPIRED', async () => {
    const rig = await hubRig(suite);
    const token = rig.token(ANN, 1);
    rig.clock.t += 5_000;
    const socket = rig.open();
    socket.text({ type: 'hello', token });
    expect(socket.frames()).toEqual([
      expect.objectContaining({ type: 'error', id: null, code: 'TOKEN_EXPIRED' }),
    ]);
  });

  it('a second hello is refused with ALREADY_AUTHENTICATED and changes nothing', async () => {
    const rig = await hubRig(suite);
    const socket = rig.authed(ANN);
    socket.text({ type: 'hello', token: rig.token(BOB) });
    expect(socket.frames()[1]).toEqual({
      type: 'error',
      id: null,
      code: 'ALREADY_AUTHENTICATED',
      message: 'This socket has said hello already.',
    });
    socket.text({ type: 'hello', token: rig.token(ANN) });
    expect(socket.framesOf('welcome')).toHaveLength(1);
  });

  it('a socket with no hello in HELLO_TIMEOUT_MS is closed 1008 "hello expected"; one that said hello is not', async () => {
    const rig = await hubRig(suite, { env: { HELLO_TIMEOUT_MS: '100' } });
    const silent = rig.open();
    const greeted = rig.authed(ANN);
    await closedOnce(silent);
    await sleep(50);
    expect(silent.closes).toEqual([{ code: 1008, reason: 'hello expected' }]);
    expect(greeted.closes).toEqual([]);
    expect(rig.logged('socket closed: no hello in time')).toEqual([
      expect.objectContaining({ conn: connId(rig, 1) }),
    ]);
  });

  it('a socket that says hello after being asked to close stays closed, silent', async () => {
    const rig = await hubRig(suite, { env: { HELLO_TIMEOUT_MS: '100' } });
    const silent = rig.open();
    silent.answersClose = false;
    await waitFor(() => silent.closes.length === 1);
    silent.text({ type: 'hello', token: rig.token(ANN) });
    expect(silent.sent).toEqual([]);
  });
});

describe('SocketHub: frames', () => {
  it('a binary frame is refused with INVALID_MESSAGE', async () => {
    const rig = await hubRig(suite);
    const socket = rig.open();
    socket.raw(Buffer.from('{"type":"ping"}'), true);
    expect(socket.frames()).toEqual([
      {
        type: 'error',
        id: null,
        code: 'INVALID_MESSAGE',
        message: 'Frames are JSON text; binary frames are refused.',
      },
    ]);
    expect(await rig.refused('INVALID_MESSAGE')).toBe(1);
  });

  it('a text frame in fragments or as an ArrayBuffer is read whole', async () => {
    const rig = await hubRig(suite);
    const socket = rig.open();
    socket.raw([Buffer.from('{"type":"pi'), Buffer.from('ng","id":"p1"}')], false);
    const bytes = Buffer.from('{"type":"ping","id":"p2"}');
    socket.raw(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer, false);
    expect(socket.frames()).toEqual([
      { type: 'pong', id: 'p1', serverTime: rig.clock.now() },
      { type: 'pong', id: 'p2', serverTime: rig.clock.now() },
    ]);
  });

  it(`a frame of more than ${MAX_FRAME_BYTES} bytes is refused with FRAME_TOO_LARGE; one of exactly that many is read`, async () => {
    const rig = await hubRig(suite);
    const socket = rig.open();
    const frame = (bytes: number) => {
      const head = '{"type":"ping","id":"';
      return `${head}${'x'.repeat(bytes - head.length - 2)}"}`;
    };
    socket.text(frame(MAX_FRAME_BYTES + 1));
    socket.text(frame(MAX_FRAME_BYTES));
    const frames = socket.frames();
    expect(frames[0]).toEqual({
      type: 'error',
      id: null,
      code: 'FRAME_TOO_LARGE',
      message: `A frame may hold at most ${MAX_FRAME_BYTES} bytes.`,
    });
    expect(frames[1]).toMatchObject({ type: 'error', code: 'INVALID_MESSAGE' });
    expect(await rig.refused('FRAME_TOO_LARGE')).toBe(1);
  });

  it('bad JSON is refused with BAD_JSON, an unknown type with UNKNOWN_TYPE and its id', async () => {
    const rig = await hubRig(suite);
    const socket = rig.open();
    socket.text('{"type":');
    socket.text({ type: 'fly', id: 'u1' });
    await refusedOnceEach(rig, socket, [
      [null, 'BAD_JSON', 'The frame is not valid JSON.'],
      ['u1', 'UNKNOWN_TYPE', 'Unknown message type "fly".'],
    ]);
  });

  it('a refused frame is logged once a second at most (the metric counts each)', async () => {
    const rig = await hubRig(suite);
    const socket = rig.authed(ANN);
    socket.text('nope');
    socket.text('nope');
    rig.clock.t += 999;
    socket.text('nope');
    rig.clock.t += 1;
    socket.text('nope');
    expect(await rig.refused('BAD_JSON')).toBe(4);
    expect(rig.logged('frame refused')).toEqual([
      expect.objectContaining({ conn: connId(rig, 1), player: ANN.id, code: 'BAD_JSON' }),
      expect.objectContaining({ code: 'BAD_JSON' }),
    ]);
  });

  it('a ping frame is answered with pong, its id (or null) and the server time', async () => {
    const rig = await hubRig(suite);
    const socket = rig.open();
    socket.text({ type: 'ping', id: 'p1' });
    rig.clock.t += 5;
    socket.text({ type: 'ping' });
    expect(socket.frames()).toEqual([
      { type: 'pong', id: 'p1', serverTime: rig.clock.t - 5 },
      { type: 'pong', id: null, serverTime: rig.clock.t },
    ]);
  });

  it('a frame whose handler throws is answered INTERNAL and logged; the socket goes on', async () => {
    const rig = await hubRig(suite);
    const socket = rig.open();
    socket.failing = 1;
    socket.text({ type: 'ping', id: 'p1' });
    expect(socket.frames()).toEqual([
      { type: 'error', id: null, code: 'INTERNAL', message: 'Something went wrong on the server.' },
    ]);
    expect(rig.logged('frame handler failed')).toEqual([
      expect.objectContaining({ level: 50, conn: connId(rig, 1) }),
    ]);
  });
});

describe('SocketHub: the rate limit', () => {
  const limited = { WS_RATE_PER_SECOND: '1', WS_RATE_BURST: '2', WS_ABUSE_LIMIT: '4' };

  it('frames over the burst are refused with one RATE_LIMITED notice a second; the abuse limit closes the socket 1008', async () => {
    const rig = await hubRig(suite, { env: limited });
    const socket = rig.authed(ANN); // one token
    socket.text({ type: 'ping', id: 'a' }); // the second
    socket.text({ type: 'ping', id: 'b' }); // refused: the notice (1)
    socket.text({ type: 'ping', id: 'c' }); // refused, no notice (2)
    expect(socket.frames().slice(1)).toEqual([
      { type: 'pong', id: 'a', serverTime: rig.clock.t },
      { type: 'error', id: null, code: 'RATE_LIMITED', message: 'Too many frames; slow down.' },
    ]);
    rig.clock.t += 1_000; // one token back
    socket.text({ type: 'ping', id: 'd' });
    socket.text({ type: 'ping', id: 'e' }); // refused: a notice again, a second on (3)
    const types = socket.frames().map((f) => f['type']);
    expect(types.slice(3)).toEqual(['pong', 'error']);
    expect(socket.closes).toEqual([]);
    socket.text({ type: 'ping', id: 'f' }); // refused (4): closed
    expect(socket.closes).toEqual([{ code: 1008, reason: 'too many frames' }]);
    expect(await rig.refused('RATE_LIMITED')).toBe(4);
    expect(rig.logged('frames refused: RATE_LIMITED')).toEqual([
      expect.objectContaining({ conn: connId(rig, 1), player: ANN.id }),
      expect.objectContaining({ conn: connId(rig, 1) }),
    ]);
    expect(rig.logged('socket closed: frame flood')).toEqual([
      expect.objectContaining({ level: 40, conn: connId(rig, 1), player: ANN.id, refused: 4 }),
    ]);
    // A socket being closed is not read any more: not even counted.
    socket.text({ type: 'ping', id: 'g' });
    expect(await rig.refused('RATE_LIMITED')).toBe(4);
    expect(socket.sent).toHaveLength(5);
  });

  it('refusals more than 10 s apart start a new abuse window; 10 s apart, the same window', async () => {
    const rig = await hubRig(suite, { env: { ...limited, WS_ABUSE_LIMIT: '3' } });
    const a = rig.open();
    const b = rig.open();
    const flood = (socket: HubSocket, n: number) => {
      for (let i = 0; i < n; i++) socket.text({ type: 'ping' });
    };
    flood(a, 4); // 2 answered, 2 refused
    flood(b, 4);
    rig.clock.t += 10_000; // the bucket full again
    flood(b, 3); // the third refusal of its window: closed
    expect(b.closes).toHaveLength(1);
    rig.clock.t += 1;
    flood(a, 4); // a new window: 2 refusals in it
    expect(a.closes).toHaveLength(0);
    flood(a, 1);
    expect(a.closes).toHaveLength(1);
  });

  it("the client's pings and pongs take tokens: a ping is answered with its data until the bucket is empty", async () => {
    const rig = await hubRig(suite, { env: limited });
    const socket = rig.open();
    socket.emit('ping', Buffer.from('x1'));
    socket.emit('pong', Buffer.alloc(0));
    socket.emit('ping', Buffer.from('x2'));
    socket.emit('pong', Buffer.alloc(0));
    expect(socket.pongs).toEqual([Buffer.from('x1')]);
    expect(await rig.refused('RATE_LIMITED')).toBe(2);
    expect(socket.frames()).toEqual([
      { type: 'error', id: null, code: 'RATE_LIMITED', message: 'Too many frames; slow down.' },
    ]);
  });

  it('pings and pongs of a socket being closed are ignored', async () => {
    const rig = await hubRig(suite, { env: { ...limited, WS_ABUSE_LIMIT: '1' } });
    const socket = rig.open();
    socket.answersClose = false;
    for (let i = 0; i < 3; i++) socket.text({ type: 'ping' });
    expect(socket.closes).toHaveLength(1);
    // The bucket is empty: a ping or pong that were read would be refused and counted.
    socket.emit('ping', Buffer.from('late'));
    socket.emit('pong', Buffer.alloc(0));
    expect(socket.pongs).toEqual([]);
    expect(await rig.refused('RATE_LIMITED')).toBe(1);
  });

  it('a ping or pong handler that throws is logged, not thrown', async () => {
    const rig = await hubRig(suite, { env: { ...limited, WS_RATE_BURST: '1' } });
    const socket = rig.open();
    socket.failing = 1;
    expect(() => socket.emit('ping', Buffer.from('p'))).not.toThrow();
    socket.failing = 1;
    expect(() => socket.emit('pong', Buffer.alloc(0))).not.toThrow();
    expect(rig.logged('ping handler failed')).toEqual([
      expect.objectContaining({ level: 50, conn: connId(rig, 1) }),
    ]);
    expect(rig.logged('pong handler failed')).toEqual([
      expect.objectContaining({ level: 50, conn: connId(rig, 1) }),
    ]);
  });
});

describe('SocketHub: the heartbeat', () => {
  const beat = { WS_PING_INTERVAL_MS: '100', WS_PONG_TIMEOUT_MS: '200' };
  /** Long enough for several heartbeat ticks (every 20 ms here). */
  const ticks = () => sleep(80);

  it('pings a socket silent for WS_PING_INTERVAL_MS, and cuts it when no pong comes in WS_PONG_TIMEOUT_MS', async () => {
    const rig = await hubRig(suite, { env: beat });
    const anonymous = rig.open();
    const socket = rig.authed(ANN);
    rig.clock.t += 99;
    await ticks();
    expect(socket.pings).toBe(0);
    rig.clock.t += 1;
    await waitFor(() => socket.pings === 1 && anonymous.pings === 1, 1500, 'a ping');
    rig.clock.t += 199;
    await ticks();
    expect(socket.pings).toBe(1);
    expect(socket.terminated).toBe(0);
    rig.clock.t += 1;
    await waitFor(() => socket.terminated === 1 && anonymous.terminated === 1, 1500, 'the cuts');
    expect(rig.logged('socket dropped: no pong in time')).toEqual([
      expect.objectContaining({ conn: connId(rig, 1), waitedMs: 200 }),
      expect.objectContaining({ conn: connId(rig, 2), player: ANN.id, waitedMs: 200 }),
    ]);
    await closedOnce(socket);
    await closedOnce(anonymous);
    expect(rig.hub.size).toBe(0);
  });

  it('a pong answers the ping: the socket is pinged again only WS_PING_INTERVAL_MS after it', async () => {
    const rig = await hubRig(suite, { env: beat });
    const socket = rig.open();
    rig.clock.t += 100;
    await waitFor(() => socket.pings === 1, 1500, 'a ping');
    rig.clock.t += 150;
    socket.emit('pong', Buffer.alloc(0));
    rig.clock.t += 99;
    await ticks();
    expect(socket.pings).toBe(1);
    expect(socket.terminated).toBe(0);
    rig.clock.t += 1;
    await waitFor(() => socket.pings === 2, 1500, 'a second ping');
  });

  it('a frame is a sign of life: a socket that talks is pinged only WS_PING_INTERVAL_MS after its last frame', async () => {
    const rig = await hubRig(suite, { env: beat });
    const socket = rig.open();
    rig.clock.t += 90;
    socket.text({ type: 'ping' });
    rig.clock.t += 99;
    await ticks();
    expect(socket.pings).toBe(0);
    rig.clock.t += 1;
    await waitFor(() => socket.pings === 1, 1500, 'a ping 100 ms after the frame');
  });

  it('a socket being closed is neither pinged nor cut', async () => {
    const rig = await hubRig(suite, { env: { ...beat, WS_RATE_BURST: '1', WS_ABUSE_LIMIT: '1' } });
    const socket = rig.open();
    socket.answersClose = false;
    socket.text({ type: 'ping' });
    socket.text({ type: 'ping' });
    expect(socket.closes).toHaveLength(1);
    rig.clock.t += 1_000;
    await ticks();
    expect(socket.pings).toBe(0);
    expect(socket.terminated).toBe(0);
  });
});

describe('SocketHub: sockets per player', () => {
  const two = { WS_MAX_SOCKETS_PER_PLAYER: '2' };

  it("one socket over WS_MAX_SOCKETS_PER_PLAYER closes the player's oldest, which is told why (TOO_MANY_SOCKETS)", async () => {
    const rig = await hubRig(suite, { env: two });
    const first = rig.authed(ANN);
    const second = rig.authed(ANN);
    const bob = rig.authed(BOB);
    expect(first.closes).toEqual([]);
    const third = rig.authed(ANN);
    expect(first.last()).toEqual({
      type: 'error',
      id: null,
      code: 'TOO_MANY_SOCKETS',
      message: 'At most 2 sockets per player: this one, the oldest, is closed.',
    });
    expect(first.closes).toEqual([{ code: 1008, reason: 'too many sockets for one player' }]);
    expect([second, third, bob].map((s) => s.closes)).toEqual([[], [], []]);
    expect(await rig.refused('TOO_MANY_SOCKETS')).toBe(1);
    expect(rig.logged('socket closed: too many sockets for one player')).toEqual([
      expect.objectContaining({ conn: connId(rig, 1), player: ANN.id, max: 2 }),
    ]);
    await closedOnce(first);
    rig.authed(ANN);
    expect(second.closes).toHaveLength(1);
    expect(third.closes).toHaveLength(0);
  });

  it("a closed socket no longer counts towards its player's limit", async () => {
    const rig = await hubRig(suite, { env: two });
    const first = rig.authed(ANN);
    const second = rig.authed(ANN);
    first.closed(1000);
    rig.authed(ANN);
    expect(second.closes).toEqual([]);
    second.closed(1000);
    rig.authed(ANN);
    rig.authed(ANN);
    expect(rig.hub.size).toBe(3);
    // Only the third (the oldest of the three open) was evicted: the closed ones were not counted.
    expect(await rig.refused('TOO_MANY_SOCKETS')).toBe(1);
  });

  it("evictSocket closes one of this gateway's authenticated sockets by id, and nothing else", async () => {
    const rig = await hubRig(suite);
    const anon = rig.open();
    const ann = rig.authed(ANN);
    rig.hub.evictSocket(connId(rig, 1));
    rig.hub.evictSocket('gw-other:1');
    expect(anon.closes).toEqual([]);
    expect(ann.closes).toEqual([]);
    rig.hub.evictSocket(connId(rig, 2));
    expect(ann.closes).toEqual([{ code: 1008, reason: 'too many sockets for one player' }]);
    expect(ann.last()).toMatchObject({ code: 'TOO_MANY_SOCKETS' });
    rig.hub.evictSocket(connId(rig, 2));
    expect(ann.framesOf('error')).toHaveLength(1);
    expect(await rig.refused('TOO_MANY_SOCKETS')).toBe(1);
  });

  it("on real Redis: each authenticated socket is listed on its player's set, and taken off when it closes", async () => {
    const rig = await hubRig(suite, { everywhere: true });
    const key = rig.names.playerSockets(ANN.id);
    const members = () => rig.commands!.zrange(key, 0, -1);
    const first = rig.authed(ANN);
    rig.authed(ANN);
    rig.open();
    await eventually(async () => (await members()).length === 2);
    expect(await members()).toEqual([connId(rig, 1), connId(rig, 2)]);
    first.closed(1000);
    await waitFor(() => rig.hub.size === 2);
    await eventually(async () => (await members()).length === 1);
    expect(await members()).toEqual([connId(rig, 2)]);
  });

  it('across gateways: the socket over the limit on another gateway closes the oldest here, through the control channel', async () => {
    const here = await hubRig(suite, { everywhere: true, env: two });
    const there = await hubRig(suite, { everywhere: true, env: two });
    await here.everywhere!.start((id) => here.hub.evictSocket(id));
    const oldest = here.authed(ANN);
    here.clock.t += 1;
    const next = here.authed(ANN);
    const key = here.names.playerSockets(ANN.id);
    await eventually(async () => (await here.commands!.zcard(key)) === 2);
    there.clock.t = here.clock.t + 1;
    there.authed(ANN);
    await waitFor(() => oldest.closes.length === 1, 1500, 'the oldest closed');
    expect(oldest.last()).toMatchObject({ code: 'TOO_MANY_SOCKETS' });
    expect(next.closes).toEqual([]);
    await eventually(async () => !(await here.commands!.zrange(key, 0, -1)).includes(connId(here, 1)));
  });

  it("Redis counts the player's sockets on every gateway: another's over the limit is only taken off the list; this gateway's oldest is closed", async () => {
    const here = await hubRig(suite, { everywhere: true, env: two });
    const key = here.names.playerSockets(ANN.id);
    const members = () => here.commands!.zrange(key, 0, -1);
    await here.commands!.zadd(key, here.clock.t - 10, 'gw-elsewhere:1');
    const mine = here.authed(ANN);
    await eventually(async () => (await members()).length === 2);
    here.clock.t += 1;
    const second = here.authed(ANN);
    // Redis says gw-elsewhere:1 is over: not this gateway's, so it is only taken off the list.
    await eventually(async () => !(await members()).includes('gw-elsewhere:1'));
    expect([mine.closes, second.closes]).toEqual([[], []]);
    second.closed(1000);
    await eventually(async () => (await members()).length === 1);
    await here.commands!.zadd(key, here.clock.t + 1, 'gw-elsewhere:2');
    here.clock.t += 2;
    const third = here.authed(ANN);
    // Two sockets here (the limit), three in Redis: this gateway's oldest is closed.
    await waitFor(() => mine.closes.length === 1, 1500, 'the oldest here closed');
    expect(mine.last()).toMatchObject({ code: 'TOO_MANY_SOCKETS' });
    expect(third.closes).toEqual([]);
  });

  it('Redis unreachable for the count: a warning, and the socket stays', async () => {
    const rig = await hubRig(suite, { everywhere: true });
    rig.commands!.disconnect();
    const socket = rig.authed(ANN);
    await waitFor(() => rig.logged('sockets of a player not counted across gateways').length === 1);
    expect(rig.logged('sockets of a player not counted across gateways')[0]).toMatchObject({
      level: 40,
      conn: connId(rig, 1),
    });
    expect(socket.closes).toEqual([]);
  });
});

describe('SocketHub: closing and draining', () => {
  it('a closed socket is forgotten: counted, logged with its code and seconds open; a second close event changes nothing', async () => {
    const rig = await hubRig(suite, { lobby: true, chat: true });
    const socket = rig.authed(ANN);
    rig.open();
    rig.clock.t += 5_400;
    socket.closed(1001);
    expect(rig.hub.size).toBe(1);
    expect(await rig.openSockets()).toBe(1);
    socket.emit('close', 1000);
    expect(rig.logged('socket closed')).toEqual([
      expect.objectContaining({ conn: connId(rig, 1), player: ANN.id, code: 1001, seconds: 5, open: 1 }),
    ]);
    expect(rig.lobby!.calls).toEqual([`drop ${connId(rig, 1)}`]);
    expect(rig.chat!.calls).toEqual([`unfollow ${connId(rig, 1)}`]);
  });

  it('a close handler that throws is logged, not thrown; a socket error is logged at debug', async () => {
    const rig = await hubRig(suite);
    const socket = rig.open();
    const now = rig.clock.now;
    rig.clock.now = () => {
      throw new Error('boom');
    };
    expect(() => socket.closed(1000)).not.toThrow();
    rig.clock.now = now;
    socket.emit('error', new Error('ECONNRESET'));
    expect(rig.logged('close handler failed')).toEqual([
      expect.objectContaining({ level: 50, conn: connId(rig, 1) }),
    ]);
    expect(rig.logged('socket error')).toEqual([
      expect.objectContaining({ level: 20, conn: connId(rig, 1), err: 'ECONNRESET' }),
    ]);
  });

  it('drain: every socket is told to reconnect after afterMs and closed 1012; new sockets are refused; it is logged', async () => {
    const rig = await hubRig(suite);
    const a = rig.authed(ANN);
    const b = rig.open();
    await rig.hub.drain(250);
    for (const socket of [a, b]) {
      expect(socket.last()).toEqual({ type: 'reconnect', afterMs: 250 });
      expect(socket.closes).toEqual([{ code: 1012, reason: 'server restarting' }]);
    }
    expect(rig.hub.size).toBe(0);
    expect(rig.logged('sockets drained')).toEqual([expect.objectContaining({ closed: 2 })]);
    const late = rig.open();
    expect(late.closes).toEqual([{ code: 1012, reason: 'server restarting' }]);
    expect(late.sent).toEqual([]);
    expect(rig.hub.size).toBe(0);
    expect(rig.logged('socket opened')).toHaveLength(2);
  });

  it("drain's default: reconnect after 1 s; a socket that does not finish the close handshake is cut (1006)", async () => {
    const rig = await hubRig(suite, { everywhere: true });
    const stuck = rig.open();
    stuck.answersClose = false;
    // drain waits 100 times 20 ms for the close handshake: those timers are the test's to move.
    jest.useFakeTimers({
      doNotFake: [
        'nextTick',
        'setImmediate',
        'clearImmediate',
        'queueMicrotask',
        'setInterval',
        'clearInterval',
        'Date',
      ],
    });
    let drained: Promise<void>;
    try {
      drained = rig.hub.drain();
      for (let i = 0; i < 200 && stuck.terminated === 0; i++) await jest.advanceTimersByTimeAsync(20);
    } finally {
      jest.useRealTimers();
    }
    await drained;
    expect(stuck.frames()).toEqual([{ type: 'reconnect', afterMs: 1000 }]);
    expect(stuck.terminated).toBe(1);
    expect(rig.hub.size).toBe(0);
    expect(rig.logged('socket closed')).toEqual([expect.objectContaining({ code: 1006 })]);
    await waitFor(() => rig.commands!.status === 'end', 1500, 'the socket list connection quit');
  });
});
