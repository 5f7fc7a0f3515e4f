import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pino from 'pino';
import WebSocket from 'ws';
import {
  MAX_SOCKET_FRAME_BYTES,
  TableCodeSchema,
  type IntentEnvelope,
  type IntentReply,
} from '@dominoes/protocol';
import type { GatewayConfig } from '../src/config';
import { startGateway, type GatewayApp } from '../src/gateway-app';
import {
  FakeTableService,
  identity,
  RawSocket,
  sleep,
  testConfig,
  uniquePrefix,
  viewFor,
  waitFor,
} from './support';

/**
 * The WebSocket edge (issue 10): control frames go through the rate limit, a flood is closed and
 * logged once, dead peers are dropped by the heartbeat, one player holds a bounded number of sockets,
 * a sync's view reaches only the socket that asked, the upgrade checks Origin, and the client
 * address believes X-Forwarded-For only from a trusted proxy.
 */
const prefix = uniquePrefix('gw_edge');
/** A valid table code, whatever length the protocol asks for. */
const TABLE = ['KQ7MZP', 'KQ7MZPR2T4VW'].find((code) => TableCodeSchema.safeParse(code).success)!;
const PING_MS = 300;
const PONG_TIMEOUT_MS = 300;
const MAX_SOCKETS = 3;

type LogLine = Record<string, unknown> & { msg: string };
const logLines: LogLine[] = [];
let gateway: GatewayApp;
let fake: FakeTableService;
let wsUrl: string;
let ana: { token: string; playerId: string };
const sockets: RawSocket[] = [];
const gateways: GatewayApp[] = [];

/** A gateway whose log lines are kept (JSON, one object per line). */
async function gatewayWithLog(config: GatewayConfig, lines: LogLine[]): Promise<GatewayApp> {
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
  );
  const app = await startGateway(config, { logger, defaultMetrics: false });
  gateways.push(app);
  return app;
}

async function socket(url = wsUrl, options?: WebSocket.ClientOptions): Promise<RawSocket> {
  const s = new RawSocket(url, options);
  sockets.push(s);
  await s.opened;
  return s;
}

beforeAll(async () => {
  fake = new FakeTableService(prefix);
  fake.respond = (envelope: IntentEnvelope): IntentReply => {
    const seat = 0;
    const view = JSON.stringify(viewFor(envelope.tableId, seat, envelope.player!.id));
    if (envelope.intent.kind === 'join') return { ok: true, intentId: envelope.intentId, version: 5, seat };
    if (envelope.intent.kind === 'sync')
      return { ok: true, intentId: envelope.intentId, version: 5, seat, view };
    return { ok: true, intentId: envelope.intentId, version: 5, seat: null };
  };
  await fake.start();
  gateway = await gatewayWithLog(
    testConfig(prefix, {
      WS_PING_INTERVAL_MS: String(PING_MS),
      WS_PONG_TIMEOUT_MS: String(PONG_TIMEOUT_MS),
      WS_MAX_SOCKETS_PER_PLAYER: String(MAX_SOCKETS),
      WS_ABUSE_LIMIT: '150',
    }),
    logLines,
  );
  wsUrl = `ws://127.0.0.1:${gateway.port}/ws`;
  ana = await identity(`http://127.0.0.1:${gateway.port}`, 'Ana');
}, 30_000);

afterEach(async () => {
  for (const s of sockets.splice(0)) s.ws.terminate();
  // Every socket of the test is gone from the gateway before the next test counts sockets.
  await waitFor(() => gateway.hub.size === 0, 3000, 'the sockets to close');
});

afterAll(async () => {
  for (const app of gateways) await app.shutdown();
  await fake?.stop();
});

/** The connection id the gateway gave the socket, from the join envelope it sent. */
async function joined(s: RawSocket, id: string): Promise<string> {
  s.send({ type: 'join', id, table: TABLE });
  await s.next((f) => f['type'] === 'ack' && f['id'] === id);
  const envelope = fake.received.find((e) => e.intent.kind === 'join' && e.intentId.endsWith(`:${id}`))!;
  return envelope.connectionId!;
}

describe('sync answers only the socket that asked', () => {
  it('many sockets of one seat: each gets its own post-join view once, and a sync reaches only the asker', async () => {
    const seat = await Promise.all(Array.from({ length: MAX_SOCKETS }, () => socket()));
    for (const s of seat) await s.hello(ana.token);
    for (const [i, s] of seat.entries()) await joined(s, `join-${i}`);
    // Each socket's own sync after its join comes back in the reply, to it alone.
    await waitFor(() => seat.every((s) => s.frames.some((f) => f['type'] === 'view')), 3000, 'the views');
    await sleep(200);
    const views = (s: RawSocket) => s.frames.filter((f) => f['type'] === 'view').length;
    expect(seat.map(views)).toEqual(seat.map(() => 1));

    const asker = seat[1]!;
    asker.send({ type: 'sync', id: 'sync-1' });
    await asker.next((f) => f['type'] === 'ack' && f['id'] === 'sync-1');
    await sleep(300);
    expect(seat.map(views)).toEqual([1, 2, 1]);
    const view = asker.frames.filter((f) => f['type'] === 'view').at(-1)!;
    expect(view).toMatchObject({ type: 'view', version: 5, view: { tableId: TABLE, you: { seat: 0 } } });
    // The view came before the ack, so a client's sync() resolves with the view in hand.
    const order = asker.frames.map((f) => f['type'] ?? '').slice(-2);
    expect(order).toEqual(['view', 'ack']);
  });
});

describe('one player holds a bounded number of sockets', () => {
  it(`socket ${MAX_SOCKETS + 1} closes the oldest with TOO_MANY_SOCKETS, then 1008`, async () => {
    const open: RawSocket[] = [];
    for (let i = 0; i < MAX_SOCKETS; i++) {
      const s = await socket();
      await s.hello(ana.token);
      open.push(s);
    }
    const newest = await socket();
    await newest.hello(ana.token);
    const closed = await open[0]!.closed;
    expect(closed).toEqual({ code: 1008, reason: 'too many sockets for one player' });
    expect(open[0]!.frames.at(-1)).toEqual({
      type: 'error',
      id: null,
      code: 'TOO_MANY_SOCKETS',
      message: expect.stringContaining(`${MAX_SOCKETS}`),
    });
    await sleep(200);
    expect([...open.slice(1), newest].map((s) => s.closeCode)).toEqual([null, null, null]);
    // Another player is not counted with Ana.
    const bruno = await identity(`http://127.0.0.1:${gateway.port}`, 'Bruno');
    const other = await socket();
    expect(await other.hello(bruno.token)).toMatchObject({ type: 'welcome' });
    await sleep(100);
    expect(other.closeCode).toBeNull();
  });
});

describe('one player holds a bounded number of sockets across gateways', () => {
  it('sockets on two gateways count together: one more closes the oldest, on the other gateway', async () => {
    const otherLines: LogLine[] = [];
    const other = await gatewayWithLog(
      testConfig(prefix, { GATEWAY_ID: 'gw-edge-b', WS_MAX_SOCKETS_PER_PLAYER: String(MAX_SOCKETS) }),
      otherLines,
    );
    const cora = await identity(`http://127.0.0.1:${gateway.port}`, 'Cora');
    const onA: RawSocket[] = [];
    for (let i = 0; i < 2; i++) {
      const s = await socket();
      await s.hello(cora.token);
      onA.push(s);
      await sleep(20); // hello times order the list
    }
    const onB: RawSocket[] = [];
    for (let i = 0; i < 2; i++) {
      const s = await socket(`ws://127.0.0.1:${other.port}/ws`);
      await s.hello(cora.token);
      onB.push(s);
      await sleep(20);
    }
    // 4 sockets, 3 allowed: the oldest, on gateway A, was closed at gateway B's word.
    expect(await onA[0]!.closed).toEqual({ code: 1008, reason: 'too many sockets for one player' });
    expect(onA[0]!.frames.at(-1)).toMatchObject({ type: 'error', code: 'TOO_MANY_SOCKETS' });
    await sleep(200);
    expect([onA[1]!, ...onB].map((s) => s.closeCode)).toEqual([null, null, null]);
    for (const s of onB) s.ws.terminate();
    await waitFor(() => other.hub.size === 0, 3000, 'the other gateway to close its sockets');
  });
});

describe('floods', () => {
  it('a frame flood closes the socket once, with one log line for the close and a few for the refusals', async () => {
    const s = await socket();
    await s.hello(ana.token);
    const from = logLines.length;
    for (let i = 0; i < 2000; i++) s.send('garbage');
    expect((await s.closed).code).toBe(1008);
    await sleep(300);
    const lines = logLines.slice(from);
    expect(lines.filter((l) => l.msg === 'socket closed: frame flood')).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'socket closed')).toHaveLength(1);
    // Refusals are logged at most once a second per socket (the metrics count each one).
    expect(lines.length).toBeLessThan(10);
  });

  it('pings take tokens: past the burst they are not answered, and a ping flood closes the socket with 1008', async () => {
    const s = await socket();
    let pongs = 0;
    s.ws.on('pong', () => (pongs += 1));
    for (let i = 0; i < 1000; i++) s.ws.ping(Buffer.alloc(125, 1));
    expect((await s.closed).code).toBe(1008);
    expect(pongs).toBeGreaterThan(0);
    expect(pongs).toBeLessThanOrEqual(60); // burst 40, plus what refills while the flood is read
  });

  it('a few pings are answered, with their payload', async () => {
    const s = await socket();
    const payload = await new Promise<Buffer>((done) => {
      s.ws.once('pong', (data) => done(data));
      s.ws.ping(Buffer.from('are you there'));
    });
    expect(payload.toString()).toBe('are you there');
    expect(s.closeCode).toBeNull();
  });

  it('a frame over MAX_SOCKET_FRAME_BYTES closes the socket with 1009 and no error frame, as docs/protocol.md says', async () => {
    const s = await socket();
    await s.hello(ana.token);
    const before = s.frames.length;
    s.send('x'.repeat(MAX_SOCKET_FRAME_BYTES + 1));
    expect((await s.closed).code).toBe(1009);
    expect(s.frames.slice(before)).toEqual([]);
    const doc = readFileSync(resolve(__dirname, '../../../docs/protocol.md'), 'utf8').replace(/\s+/g, ' ');
    expect(doc).toContain(
      `frame over ${MAX_SOCKET_FRAME_BYTES} bytes (the socket's hard limit) is not read at all: the socket is closed with 1009 (message too big), without an error frame`,
    );
    expect(doc).not.toContain('Bad frames never close the socket');
  });
});

describe('heartbeat', () => {
  it('a socket that does not answer pings is dropped within interval + timeout, and its seat is told', async () => {
    const dead = await socket(wsUrl, { autoPong: false });
    await dead.hello(ana.token);
    const connectionId = await joined(dead, 'join-dead');
    const live = await socket(); // ws answers pings by itself
    await live.hello(ana.token);
    const started = Date.now();
    await dead.closed;
    const took = Date.now() - started;
    expect(took).toBeLessThan(PING_MS + PONG_TIMEOUT_MS + 1000);
    // The gateway cut it (no close handshake): 1006 on this side.
    expect(dead.closeCode).toBe(1006);
    const presence = await waitFor(
      () => fake.received.find((e) => e.intentId === `${connectionId}:closed`),
      2000,
      'the presence note',
    );
    expect(presence.intent).toEqual({ kind: 'presence', connected: false });
    expect(
      logLines.filter((l) => l.msg === 'socket dropped: no pong in time' && l['conn'] === connectionId),
    ).toHaveLength(1);
    // A socket that answers stays open through several intervals.
    await sleep(3 * (PING_MS + PONG_TIMEOUT_MS));
    expect(live.closeCode).toBeNull();
  });
});

describe('the upgrade', () => {
  it('a browser page of another origin is refused with 403; the allowed origin and no Origin are let in', async () => {
    const refused = await new Promise<number>((done, fail) => {
      const ws = new WebSocket(wsUrl, { headers: { origin: 'https://evil.example' } });
      ws.on('unexpected-response', (_req, res) => {
        done(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.on('open', () => fail(new Error('the upgrade was accepted')));
      ws.on('error', () => undefined);
    });
    expect(refused).toBe(403);
    const allowed = await socket(wsUrl, { headers: { origin: 'http://dominoes.test' } });
    expect(await allowed.hello(ana.token)).toMatchObject({ type: 'welcome' });
    const noOrigin = await socket();
    expect(await noOrigin.hello(ana.token)).toMatchObject({ type: 'welcome' });
    expect(
      logLines.some(
        (l) => l.msg === 'WebSocket upgrade refused: origin' && l['origin'] === 'https://evil.example',
      ),
    ).toBe(true);
  });

  it('X-Forwarded-For is ignored from an untrusted peer, and believed from a trusted proxy', async () => {
    const opened = (lines: LogLine[]) =>
      lines.filter((l) => l.msg === 'socket opened').map((l) => l['remote']);
    const headers = { 'x-forwarded-for': '203.0.113.7, 198.51.100.2' };
    const before = logLines.length;
    await socket(wsUrl, { headers });
    expect(opened(logLines.slice(before))).toEqual(['127.0.0.1']);

    const proxiedLines: LogLine[] = [];
    const proxied = await gatewayWithLog(
      testConfig(prefix, { GATEWAY_ID: 'gw-proxied', TRUSTED_PROXIES: '127.0.0.1' }),
      proxiedLines,
    );
    await socket(`ws://127.0.0.1:${proxied.port}/ws`, { headers });
    await socket(`ws://127.0.0.1:${proxied.port}/ws`);
    expect(opened(proxiedLines)).toEqual(['198.51.100.2', '127.0.0.1']);
  });
});
