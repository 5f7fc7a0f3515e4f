import { ConfigError, createLogger, createRedis, type Redis } from '@dominoes/platform';
import { redisNames } from '@dominoes/protocol';
import type { GatewayApp } from '../src/gateway-app';
import { GatewayHeartbeat } from '../src/ws/gateway-heartbeat';
import {
  FakeTableService,
  identity,
  RawSocket,
  REDIS_URL,
  sleep,
  startTestGateway,
  testConfig,
  uniquePrefix,
} from './support';

/**
 * The gateway's heartbeat (names.gatewayAlive): what the table-service looks at to close the seats'
 * connections of a gateway that died without closing its sockets (P17).
 */
const prefix = uniquePrefix('gw_heartbeat');
const names = redisNames(prefix);
let redis: Redis;
let fake: FakeTableService;

beforeAll(async () => {
  redis = createRedis(REDIS_URL, 'heartbeat-test');
  fake = new FakeTableService(prefix);
  await fake.start();
});

afterAll(async () => {
  await fake?.stop();
  redis?.disconnect();
});

describe("gateway heartbeat: what the table-service goes by to disconnect a dead gateway's seats (P17)", () => {
  it("holds the gateway's boot epoch (below every connection id's number), set with its TTL every interval; a clean shutdown flushes the sockets' presence notes, then deletes it", async () => {
    const config = testConfig(prefix, { GATEWAY_HEARTBEAT_MS: '100', GATEWAY_HEARTBEAT_TTL_MS: '1000' });
    const key = names.gatewayAlive(config.gatewayId);
    let gateway: GatewayApp | null = await startTestGateway(config);
    try {
      expect(await redis.get(key)).toBe(String(gateway.hub.epoch));
      const first = await redis.pttl(key);
      expect(first).toBeGreaterThan(0);
      expect(first).toBeLessThanOrEqual(1000);
      // Without a new beat the TTL would be about 500 ms by now.
      await sleep(500);
      expect(await redis.pttl(key)).toBeGreaterThan(700);

      // A seated socket, so that shutdown has a presence note to flush.
      fake.respond = (e) => ({
        ok: true,
        intentId: e.intentId,
        version: 3,
        seat: e.intent.kind === 'join' ? 0 : null,
      });
      const { token } = await identity(`http://127.0.0.1:${gateway.port}`, 'Ana');
      const socket = await RawSocket.open(`ws://127.0.0.1:${gateway.port}/ws`);
      expect(await socket.hello(token)).toMatchObject({ type: 'welcome' });
      socket.send({ type: 'join', id: 'j1', table: 'KQ7MZPR2T4VW' });
      await socket.next((f) => f['type'] === 'ack');
      const join = fake.received.find((e) => e.intent.kind === 'join')!;
      const [gatewayId, seq] = join.connectionId!.split(':');
      expect(gatewayId).toBe(config.gatewayId);
      expect(Number(seq)).toBeGreaterThan(gateway.hub.epoch);

      await gateway.shutdown();
      gateway = null;
      expect(fake.received.map((e) => e.intentId)).toContain(`${join.connectionId}:closed`);
      expect(await redis.exists(key)).toBe(0);
      // No beat after the shutdown brings it back.
      await sleep(300);
      expect(await redis.exists(key)).toBe(0);
    } finally {
      await gateway?.shutdown();
    }
  });

  it('stop() deletes only its own epoch: a successor started under the same gateway id keeps its key', async () => {
    const key = `${prefix}:successor-test`;
    const heartbeat = new GatewayHeartbeat({
      redis: createRedis(REDIS_URL, 'heartbeat-test-successor'),
      key,
      epoch: 1000,
      intervalMs: 60_000,
      ttlMs: 120_000,
      logger: createLogger('test', 'silent'),
    });
    await heartbeat.start();
    expect(await redis.get(key)).toBe('1000');
    await redis.set(key, '2000', 'PX', 120_000);
    await heartbeat.stop();
    expect(await redis.get(key)).toBe('2000');
    await redis.del(key);
  });

  it('GATEWAY_HEARTBEAT_MS and GATEWAY_HEARTBEAT_TTL_MS default to 3 s and 10 s; a TTL under twice the interval is refused', () => {
    expect(testConfig(prefix)).toMatchObject({ heartbeatMs: 3000, heartbeatTtlMs: 10_000 });
    expect(() =>
      testConfig(prefix, { GATEWAY_HEARTBEAT_MS: '3000', GATEWAY_HEARTBEAT_TTL_MS: '5000' }),
    ).toThrow(ConfigError);
    expect(() => testConfig(prefix, { GATEWAY_HEARTBEAT_MS: 'soon' })).toThrow(/GATEWAY_HEARTBEAT_MS/);
  });
});
