import { MAX_FRAME_BYTES } from '@dominoes/protocol';
import { signToken } from '../src/auth/tokens';
import type { GatewayApp } from '../src/gateway-app';
import {
  FakeTableService,
  identity,
  RawSocket,
  sleep,
  startTestGateway,
  testConfig,
  uniquePrefix,
  TEST_SECRET,
} from './support';

/**
 * Nothing a client sends may crash the gateway: every bad frame gets an error frame (code, message)
 * and changes nothing, and after each one the process still serves a new socket.
 */
const prefix = uniquePrefix('gw_ws_bad');
let gateway: GatewayApp;
let fake: FakeTableService;
let wsUrl: string;
let token: string;
let playerId: string;
const sockets: RawSocket[] = [];

async function socket(): Promise<RawSocket> {
  const s = await RawSocket.open(wsUrl);
  sockets.push(s);
  return s;
}

async function authed(): Promise<RawSocket> {
  const s = await socket();
  expect(await s.hello(token)).toMatchObject({ type: 'welcome', playerId });
  return s;
}

/** The gateway is still up: a brand-new socket says hello and gets its welcome. */
async function expectStillServing(): Promise<void> {
  const s = await socket();
  expect(await s.hello(token)).toMatchObject({ type: 'welcome', playerId, name: 'Ana' });
  s.close();
}

async function expectError(
  s: RawSocket,
  frame: unknown,
  code: string,
  id: string | null = null,
): Promise<Record<string, unknown>> {
  const from = s.frames.length;
  s.send(frame);
  const error = await s.next((f) => f['type'] === 'error', 3000, from);
  expect(error).toEqual({ type: 'error', id, code, message: expect.any(String) });
  expect((error['message'] as string).length).toBeGreaterThan(3);
  return error;
}

beforeAll(async () => {
  fake = new FakeTableService(prefix);
  await fake.start();
  gateway = await startTestGateway(testConfig(prefix, { HELLO_TIMEOUT_MS: '1500', WS_ABUSE_LIMIT: '150' }));
  wsUrl = `ws://127.0.0.1:${gateway.port}/ws`;
  ({ token, playerId } = await identity(`http://127.0.0.1:${gateway.port}`, 'Ana'));
}, 30_000);

afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

afterAll(async () => {
  await gateway?.shutdown();
  await fake?.stop();
});

describe('bad frames get an error frame and change nothing', () => {
  it.each<[string, unknown, string, string | null]>([
    ['malformed JSON', '{"type": "hello", ', 'BAD_JSON', null],
    ['a JSON array', '[1,2,3]', 'INVALID_MESSAGE', null],
    ['a JSON string', '"hello"', 'INVALID_MESSAGE', null],
    ['no type', { id: 'x1' }, 'INVALID_MESSAGE', 'x1'],
    ['an unknown type', { type: 'teleport', id: 'x2' }, 'UNKNOWN_TYPE', 'x2'],
    ['a missing field', { type: 'play', id: 'x3' }, 'INVALID_MESSAGE', 'x3'],
    ['an extra field', { type: 'pass', id: 'x4', cheat: true }, 'INVALID_MESSAGE', 'x4'],
    ['a tile out of range', { type: 'play', id: 'x5', tile: [7, 1] }, 'INVALID_MESSAGE', 'x5'],
    ['a bad id', { type: 'pass', id: 'has spaces' }, 'INVALID_MESSAGE', null],
    ['a bad table code', { type: 'join', id: 'x6', table: 'lower!' }, 'INVALID_MESSAGE', 'x6'],
  ])('%s', async (_label, frame, code, id) => {
    const s = await authed();
    await expectError(s, frame, code, id);
    expect(s.closeCode).toBeNull();
    await expectStillServing();
  });

  it('a frame over MAX_FRAME_BYTES (but under the socket limit) is FRAME_TOO_LARGE', async () => {
    const s = await authed();
    await expectError(s, { type: 'hello', token: 'x'.repeat(MAX_FRAME_BYTES) }, 'FRAME_TOO_LARGE');
    expect(s.closeCode).toBeNull();
    await expectStillServing();
  });

  it('a frame over 64 KiB closes the socket with 1009', async () => {
    const s = await authed();
    s.send('x'.repeat(70 * 1024));
    expect((await s.closed).code).toBe(1009);
    await expectStillServing();
  });

  it('a binary frame is INVALID_MESSAGE', async () => {
    const s = await authed();
    const from = s.frames.length;
    s.ws.send(Buffer.from(JSON.stringify({ type: 'ping' })), { binary: true });
    expect(await s.next((f) => f['type'] === 'error', 3000, from)).toMatchObject({
      code: 'INVALID_MESSAGE',
      id: null,
    });
    await expectStillServing();
  });

  it('an intent before hello is UNAUTHENTICATED and nothing is sent on', async () => {
    const s = await socket();
    for (const frame of [
      { type: 'join', id: 'j1', table: 'KQ7MZPR2T4VW' },
      { type: 'play', id: 'p1', tile: [6, 6] },
      { type: 'sync', id: 's1' },
    ]) {
      await expectError(s, frame, 'UNAUTHENTICATED', frame.id);
    }
    await sleep(100);
    expect(fake.received).toHaveLength(0);
    await expectStillServing();
  });

  it('an intent other than join before joining is NOT_SEATED', async () => {
    const s = await authed();
    await expectError(s, { type: 'pass', id: 'n1' }, 'NOT_SEATED', 'n1');
    expect(fake.received).toHaveLength(0);
  });

  it('a forged token is TOKEN_INVALID; an expired one TOKEN_EXPIRED; the socket may try again', async () => {
    const s = await socket();
    const forged = signToken({ pid: playerId, name: 'Ana' }, 'not-the-secret-0123456789abcdefgh', Date.now());
    await expectError(s, { type: 'hello', token: forged }, 'TOKEN_INVALID');
    const [body] = token.split('.');
    await expectError(s, { type: 'hello', token: `${body}.${'A'.repeat(43)}` }, 'TOKEN_INVALID');
    const expired = signToken(
      { pid: playerId, name: 'Ana' },
      TEST_SECRET,
      Date.now() - 31 * 24 * 3600 * 1000,
    );
    await expectError(s, { type: 'hello', token: expired }, 'TOKEN_EXPIRED');
    await expectError(s, { type: 'sync', id: 'after-bad-hello' }, 'UNAUTHENTICATED', 'after-bad-hello');
    expect(await s.hello(token)).toMatchObject({ type: 'welcome', playerId });
    await expectStillServing();
  });

  it('a second hello is ALREADY_AUTHENTICATED', async () => {
    const s = await authed();
    await expectError(s, { type: 'hello', token }, 'ALREADY_AUTHENTICATED');
  });

  it('ping gets pong, before and after hello', async () => {
    const s = await socket();
    s.send({ type: 'ping', id: 'p-1' });
    expect(await s.next((f) => f['type'] === 'pong')).toEqual({
      type: 'pong',
      id: 'p-1',
      serverTime: expect.any(Number),
    });
  });
});

describe('limits', () => {
  it('a flood gets RATE_LIMITED (at most one notice a second) and the socket keeps working', async () => {
    const s = await authed();
    for (let i = 0; i < 100; i++) s.send({ type: 'ping', id: `f${i}` });
    await s.next((f) => f['code'] === 'RATE_LIMITED');
    await sleep(200);
    const notices = s.frames.filter((f) => f['code'] === 'RATE_LIMITED');
    const pongs = s.frames.filter((f) => f['type'] === 'pong');
    // One notice a second at most (two if the machine is so loaded the burst spans a second).
    expect(notices.length).toBeGreaterThanOrEqual(1);
    expect(notices.length).toBeLessThanOrEqual(2);
    expect(notices[0]).toMatchObject({ type: 'error', id: null, code: 'RATE_LIMITED' });
    expect(pongs.length).toBeGreaterThanOrEqual(38); // burst 40, the hello took one
    expect(pongs.length).toBeLessThan(80); // tokens refill while a loaded machine works through the burst
    expect(s.closeCode).toBeNull();
    // Tokens come back with time.
    await sleep(300);
    s.send({ type: 'ping', id: 'later' });
    await s.next((f) => f['id'] === 'later');
    await expectStillServing();
  });

  it('sustained abuse closes the socket with 1008', async () => {
    const s = await authed();
    for (let i = 0; i < 400; i++) s.send('garbage');
    expect((await s.closed).code).toBe(1008);
    await expectStillServing();
  });

  it('a socket that does not say hello in time is closed with 1008', async () => {
    const s = await socket();
    expect((await s.closed).code).toBe(1008);
    await expectStillServing();
  });

  it('counts refused frames by code in /metrics', async () => {
    const text = await (await fetch(`http://127.0.0.1:${gateway.metricsPort}/metrics`)).text();
    for (const code of [
      'BAD_JSON',
      'UNKNOWN_TYPE',
      'INVALID_MESSAGE',
      'FRAME_TOO_LARGE',
      'UNAUTHENTICATED',
      'TOKEN_INVALID',
      'TOKEN_EXPIRED',
      'RATE_LIMITED',
    ]) {
      expect(text).toMatch(new RegExp(`dominoes_ws_frames_refused_total\\{code="${code}"\\} [1-9]`));
    }
  });
});
