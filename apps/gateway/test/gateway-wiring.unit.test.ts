import WebSocket from 'ws';
import { redisNames, type GatewayControl } from '@dominoes/protocol';
import { createRedis, type Redis } from '@dominoes/platform';
import { recordingLogger, type LoggedLine } from '../../../libs/platform/src/test-logger';
import { startGateway, type GatewayApp } from '../src/gateway-app';
import type { GatewayConfig } from '../src/config';
import { WS_MAX_PAYLOAD } from '../src/ws/socket-hub';
import { expectLiveAndReady, wiringSteps } from '../../../e2e/src/wiring-test';
import {
  eventually,
  FakeTableService,
  identity,
  RawSocket,
  REDIS_URL,
  testConfig,
  uniquePrefix,
  waitFor,
} from './support';

/**
 * The gateway as GatewayModule and startGateway wire it, started once on real Redis and Postgres:
 * the ws adapter and its limits, the heartbeat, the player sockets across gateways, the intents'
 * transport, health, metrics, and what shutdown drains and releases.
 */
const prefix = uniquePrefix('gw_wiring');
const names = redisNames(prefix, 4);
const { logger, lines } = recordingLogger();
let config: GatewayConfig;
let gateway: GatewayApp;
let fake: FakeTableService;
let redis: Redis;
let base: string;
let wsUrl: string;
const sockets: RawSocket[] = [];

beforeAll(async () => {
  config = testConfig(prefix, {
    GATEWAY_HEARTBEAT_MS: '50',
    GATEWAY_HEARTBEAT_TTL_MS: '2000',
    WS_MAX_SOCKETS_PER_PLAYER: '2',
    ALLOWED_ORIGINS: 'https://other.test',
  });
  redis = createRedis(REDIS_URL, 'gateway-wiring-test');
  fake = new FakeTableService(prefix);
  await fake.start();
}, 30_000);

afterAll(async () => {
  for (const socket of sockets) socket.ws.terminate();
  await gateway?.shutdown();
  await fake?.stop();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

async function open(options?: WebSocket.ClientOptions): Promise<RawSocket> {
  const socket = new RawSocket(wsUrl, options);
  sockets.push(socket);
  await socket.opened;
  return socket;
}

/** The status message of the last refused upgrade. */
let refusedWith: string | null = null;

/** The upgrade's answer when it is refused (its HTTP status), or 101 when a socket opens. */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => {
      ws.terminate();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => {
      refusedWith = res.statusMessage ?? null;
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('error', (error) => reject(error));
  });
}

/** The names of the Redis connections open now that belong to this gateway. */
async function connectionsOfThisGateway(): Promise<string[]> {
  const list = (await redis.client('LIST')) as string;
  return list
    .split('\n')
    .map((line) => /\bname=(\S*)/.exec(line)?.[1] ?? '')
    .filter((name) => name.includes(config.gatewayId))
    .sort();
}

const logged = (msg: string): LoggedLine[] => lines.filter((l) => l.msg === msg);

async function metricsText(): Promise<string> {
  return (await fetch(`http://127.0.0.1:${gateway.metricsPort}/metrics`)).text();
}

describe('the gateway as its module wires it (real Redis and Postgres)', () => {
  // One test: it starts the app, then runs the steps, each named for what it proves (why: wiringSteps).
  const { step, test } = wiringSteps();

  step('is live and ready: Redis and the one Postgres database answer', async () => {
    await expectLiveAndReady(base, { status: 'ok', redis: 'ok', postgres: 'ok' });
  });

  step('holds a named Redis connection of its own for each part', async () => {
    const id = config.gatewayId;
    expect(await connectionsOfThisGateway()).toEqual(
      ['chat', 'chat-sub', 'heartbeat', 'limits', 'replies', 'sockets', 'views', 'writer'].map(
        (part) => `gateway:${id}:${part}`,
      ),
    );
  });

  step(
    'accepts sockets on /ws from no origin, PUBLIC_URL’s and ALLOWED_ORIGINS’; another origin gets 403 before any socket, logged',
    async () => {
      expect(await upgradeStatus(wsUrl)).toBe(101);
      expect(await upgradeStatus(wsUrl, { origin: 'http://dominoes.test' })).toBe(101);
      expect(await upgradeStatus(wsUrl, { origin: 'https://other.test' })).toBe(101);
      expect(await upgradeStatus(wsUrl, { origin: 'https://evil.test' })).toBe(403);
      expect(refusedWith).toBe('Forbidden');
      const refused = logged('WebSocket upgrade refused: origin');
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({
        level: 30,
        origin: 'https://evil.test',
        remote: expect.stringContaining('127.0.0.1'),
      });
      await expect(upgradeStatus(`ws://127.0.0.1:${gateway.port}/elsewhere`)).rejects.toThrow();
    },
  );

  step(
    'closes a socket whose frame is over the max payload with 1009, the socket error logged at debug only',
    async () => {
      const socket = await open();
      socket.ws.send('x'.repeat(WS_MAX_PAYLOAD + 1));
      expect((await socket.closed).code).toBe(1009);
      // The adapter's own line (the hub logs the socket's error too, with its connection id).
      const adapterLine = () => logged('socket error').find((l) => !('conn' in l));
      await waitFor(adapterLine, 3000, 'the socket error');
      expect(adapterLine()).toMatchObject({ level: 20, err: expect.stringMatching(/payload/i) });
      expect(lines.filter((l) => l.level >= 50)).toEqual([]);
      // A frame just under the limit is the hub's to answer (not JSON: an error frame), and the socket stays.
      const other = await open();
      other.send('not json');
      await other.next((f) => f['type'] === 'error');
      expect(other.closeCode).toBeNull();
    },
  );

  step('answers a ping once (the hub does, through its rate limit; ws itself does not)', async () => {
    const socket = await open();
    let pongs = 0;
    socket.ws.on('pong', () => (pongs += 1));
    socket.ws.ping();
    await waitFor(() => pongs > 0, 3000, 'the pong');
    socket.send({ type: 'ping', id: 'p1' });
    await socket.next((f) => f['type'] === 'pong');
    expect(pongs).toBe(1);
  });

  step('writes its heartbeat: its epoch with the TTL, written again every interval', async () => {
    const key = names.gatewayAlive(config.gatewayId);
    expect(await redis.get(key)).toBe(String(gateway.hub.epoch));
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2000);
    await redis.del(key);
    await eventually(async () => (await redis.get(key)) === String(gateway.hub.epoch), 3000, 'the next beat');
  });

  step(
    'sends intents on the shard streams with replies on its own channel, its connection ids under its id',
    async () => {
      const { token } = await identity(base, 'Ana');
      const socket = await open();
      expect(await socket.hello(token)).toMatchObject({ type: 'welcome' });
      socket.send({ type: 'join', id: 'j1', table: 'KQ7MZPR2T4VW' });
      await socket.next((f) => f['type'] === 'ack');
      const join = fake.received.find((e) => e.intent.kind === 'join')!;
      expect(join.replyTo).toBe(names.replyChannel(config.gatewayId));
      expect(join.connectionId!.startsWith(`${config.gatewayId}:`)).toBe(true);
    },
  );

  step(
    'counts a player’s sockets on every gateway in Redis: tells another gateway to close its oldest, and closes its own when told',
    async () => {
      const { token, playerId } = await identity(base, 'Bea');
      const key = names.playerSockets(playerId);
      await redis.zadd(key, 1, 'gw-other:1');
      const control = createRedis(REDIS_URL, 'gateway-wiring-control');
      const heard: string[] = [];
      try {
        await control.subscribe(names.gatewayControl('gw-other'));
        control.on('message', (_c: string, m: string) => heard.push(m));
        const first = await open();
        expect(await first.hello(token)).toMatchObject({ type: 'welcome' });
        const second = await open();
        expect(await second.hello(token)).toMatchObject({ type: 'welcome' });
        await waitFor(() => heard.length > 0, 3000, 'the control message');
        const told: GatewayControl = { kind: 'too-many-sockets', connectionId: 'gw-other:1', max: 2 };
        expect(JSON.parse(heard[0]!)).toEqual(told);
        const mine = await redis.zrange(key, 0, -1);
        expect(mine).toHaveLength(2);
        expect(mine.every((id) => id.startsWith(`${config.gatewayId}:`))).toBe(true);

        // Told on its own control channel (as another gateway would): its oldest socket is closed.
        await redis.publish(
          names.gatewayControl(config.gatewayId),
          JSON.stringify({ kind: 'too-many-sockets', connectionId: mine[0], max: 2 }),
        );
        expect((await first.closed).code).toBe(1008);
        expect(first.frames).toContainEqual(
          expect.objectContaining({ type: 'error', code: 'TOO_MANY_SOCKETS' }),
        );
        expect(second.closeCode).toBeNull();
      } finally {
        await control.quit();
      }
    },
  );

  step('serves its metrics, by name, on METRICS_PORT only', async () => {
    const text = await metricsText();
    expect(text.split('\n').filter((l) => l.startsWith('# HELP'))).toEqual([
      '# HELP dominoes_open_sockets WebSockets open on this gateway',
      '# HELP dominoes_intents_total Intents forwarded to the table-service, by type and outcome (ok, an error code, timeout)',
      '# HELP dominoes_action_to_view_seconds From the intent leaving the gateway (SeatEvent.cause.sentAt) to its view frame being sent',
      "# HELP dominoes_views_behind_total Changes of a seat's view not sent to a socket that did not hold their base (it missed a view or was just bound); its whole view is asked for instead",
      '# HELP dominoes_ws_frames_refused_total WebSocket frames answered with an error frame by the gateway itself, by code',
      '# HELP dominoes_http_rate_limit_total HTTP API requests refused by a per-address limit (outcome "limited"), or let through unchecked because Redis did not answer ("unchecked"), by action',
    ]);
    expect(text).toMatch(/^# TYPE dominoes_open_sockets gauge$/m);
    expect(text).toMatch(/^# TYPE dominoes_intents_total counter$/m);
    expect(text).toMatch(/^# TYPE dominoes_action_to_view_seconds histogram$/m);
    const buckets = [...text.matchAll(/^dominoes_action_to_view_seconds_bucket\{le="([^"]+)"\}/gm)].map(
      (m) => m[1],
    );
    expect(buckets).toEqual([
      '0.002',
      '0.005',
      '0.01',
      '0.02',
      '0.035',
      '0.05',
      '0.1',
      '0.25',
      '0.5',
      '1',
      '2.5',
      '+Inf',
    ]);
    // What the sockets above did, by its labels.
    expect(text).toMatch(/^dominoes_ws_frames_refused_total\{code="TOO_MANY_SOCKETS"\} 1$/m);
    expect(text).toMatch(/^dominoes_intents_total\{type="join",outcome="ok"\} 1$/m);
    expect(text).toMatch(new RegExp(`^dominoes_open_sockets ${gateway.hub.size}$`, 'm'));
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
  });

  step(
    'shutdown drains the sockets (reconnect, 1012), deletes the heartbeat and releases every connection and port',
    async () => {
      const socket = await open();
      const shutdown = gateway.shutdown();
      expect(gateway.shutdown()).toBe(shutdown);
      await shutdown;
      expect((await socket.closed).code).toBe(1012);
      expect(socket.frames).toContainEqual({ type: 'reconnect', afterMs: 1000 });
      expect(await redis.exists(names.gatewayAlive(config.gatewayId))).toBe(0);
      await eventually(
        async () => (await connectionsOfThisGateway()).length === 0,
        3000,
        'the connections closed',
      );
      await expect(fetch(`http://127.0.0.1:${gateway.metricsPort}/metrics`)).rejects.toThrow();
      await expect(fetch(`${base}/health/live`)).rejects.toThrow();
      // In order: the sockets drained, then the stores closed.
      const drained = lines.findIndex((l) => l.msg === 'sockets drained');
      const closed = lines.findIndex((l) => l.msg === 'gateway connections closed');
      expect(drained).toBeGreaterThanOrEqual(0);
      expect(closed).toBeGreaterThan(drained);
      expect(lines[closed]!.level).toBe(20);
    },
  );

  test(async () => {
    gateway = await startGateway(config, { logger, defaultMetrics: false });
    base = `http://127.0.0.1:${gateway.port}`;
    wsUrl = `ws://127.0.0.1:${gateway.port}/ws`;
  });
});
