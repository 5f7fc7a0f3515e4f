import { redisNames, type GatewayControl } from '@dominoes/protocol';
import { recordingLogger } from '../../../libs/platform/src/test-logger';
import { GatewayMetrics } from '../src/metrics';
import { PlayerSockets } from '../src/ws/player-sockets';
import { SeatRouter } from '../src/ws/seat-router';
import { uniquePrefix, waitFor } from './support';
import { RedisConnections, TestClock } from './unit-fakes';

/**
 * A player's sockets on every gateway (WS_MAX_SOCKETS_PER_PLAYER), on real Redis: the sorted set of
 * connection ids by hello time, and the other gateways told on their control channels.
 */
const redis = new RedisConnections();
afterAll(() => redis.closeAll());

/** PlayerSockets of gateway `gw` (max 2), with a router on its own subscriber and a recording logger. */
function rig(max = 2, gatewayId = 'gw-a') {
  const names = redisNames(uniquePrefix('player_sockets'), 4);
  const { logger, lines } = recordingLogger();
  const router = new SeatRouter(
    redis.open('ps-sub'),
    names,
    new TestClock(),
    new GatewayMetrics(false),
    logger,
  );
  const client = redis.open('ps-redis');
  const sockets = new PlayerSockets(client, router, names, gatewayId, max, logger);
  const reader = redis.open('ps-reader');
  return { names, lines, router, client, sockets, reader };
}

/** Collects what is published on `channel` (a subscriber of its own). */
async function listenTo(channel: string): Promise<string[]> {
  const heard: string[] = [];
  const sub = redis.open('ps-listener');
  await sub.subscribe(channel);
  sub.on('message', (_channel: string, message: string) => heard.push(message));
  return heard;
}

describe('PlayerSockets: a player’s sockets counted across gateways in Redis', () => {
  it('added() records the socket by its hello time and answers the ids over the limit, oldest first; the list expires after a day', async () => {
    const { names, sockets, reader } = rig(2);
    const key = names.playerSockets('p1');
    expect(await sockets.added('p1', 'gw-b:1', 100)).toEqual([]);
    expect(await sockets.added('p1', 'gw-a:7', 300)).toEqual([]);
    expect(await sockets.added('p1', 'gw-a:8', 200)).toEqual(['gw-b:1']);
    expect(await sockets.added('p1', 'gw-c:9', 400)).toEqual(['gw-b:1', 'gw-a:8']);
    expect(await reader.zrange(key, 0, -1, 'WITHSCORES')).toEqual([
      'gw-b:1',
      '100',
      'gw-a:8',
      '200',
      'gw-a:7',
      '300',
      'gw-c:9',
      '400',
    ]);
    const ttl = await reader.pttl(key);
    expect(ttl).toBeGreaterThan(23 * 3600 * 1000);
    expect(ttl).toBeLessThanOrEqual(24 * 3600 * 1000);
    // Another player's list is its own.
    expect(await sockets.added('p2', 'gw-a:10', 500)).toEqual([]);
    expect(await reader.zcard(names.playerSockets('p2'))).toBe(1);
  });

  it('with a limit of 1 the previous socket is over it as soon as a second one says hello', async () => {
    const { sockets } = rig(1);
    expect(await sockets.added('p1', 'gw-a:1', 1)).toEqual([]);
    expect(await sockets.added('p1', 'gw-a:2', 2)).toEqual(['gw-a:1']);
  });

  it("evict() takes the ids off the list and tells each other gateway on its control channel, never this one's", async () => {
    const { names, sockets, reader } = rig(2, 'gw-a');
    const key = names.playerSockets('p1');
    for (const [i, id] of ['gw-b:1', 'gw-a:2', 'gw-x:y:3', 'gw-a:4'].entries())
      await sockets.added('p1', id, i);
    const toB = await listenTo(names.gatewayControl('gw-b'));
    const toXY = await listenTo(names.gatewayControl('gw-x:y'));
    const toA = await listenTo(names.gatewayControl('gw-a'));
    await sockets.evict('p1', ['gw-b:1', 'gw-a:2', 'gw-x:y:3']);
    expect(await reader.zrange(key, 0, -1)).toEqual(['gw-a:4']);
    const told: GatewayControl = { kind: 'too-many-sockets', connectionId: 'gw-b:1', max: 2 };
    await waitFor(() => toB.length === 1 && toXY.length === 1, 3000, 'the control messages');
    expect(toB.map((m) => JSON.parse(m) as unknown)).toEqual([told]);
    expect(toXY.map((m) => JSON.parse(m) as unknown)).toEqual([{ ...told, connectionId: 'gw-x:y:3' }]);
    // A round trip on the same connection, so a message to gw-a would have arrived by now.
    await reader.ping();
    expect(toA).toEqual([]);
  });

  it('evict() of no ids sends nothing; removed() takes one socket off the list', async () => {
    const { names, sockets, reader } = rig(2);
    const key = names.playerSockets('p1');
    await sockets.added('p1', 'gw-a:1', 1);
    await sockets.added('p1', 'gw-b:2', 2);
    const toB = await listenTo(names.gatewayControl('gw-b'));
    await sockets.evict('p1', []);
    expect(await reader.zcard(key)).toBe(2);
    await sockets.removed('p1', 'gw-a:1');
    expect(await reader.zrange(key, 0, -1)).toEqual(['gw-b:2']);
    await reader.ping();
    expect(toB).toEqual([]);
  });

  it('start() hands each valid message of its control channel to evict, and drops (with a warning) what is not one', async () => {
    const { names, sockets, lines, reader } = rig(3, 'gw-a');
    const evicted: [string, GatewayControl][] = [];
    await sockets.start((id, message) => evicted.push([id, message]));
    const channel = names.gatewayControl('gw-a');
    await reader.publish(channel, 'not json');
    await reader.publish(channel, JSON.stringify({ kind: 'something-else', connectionId: 'gw-a:1', max: 1 }));
    await reader.publish(
      channel,
      JSON.stringify({ kind: 'too-many-sockets', connectionId: 'gw-a:5', max: 3 }),
    );
    await waitFor(() => evicted.length === 1, 3000, 'the eviction');
    expect(evicted).toEqual([['gw-a:5', { kind: 'too-many-sockets', connectionId: 'gw-a:5', max: 3 }]]);
    const warnings = lines.filter((l) => l.msg === 'dropped an invalid control message');
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatchObject({ level: 40, channel });
    // Another gateway's channel is not this one's.
    await reader.publish(
      names.gatewayControl('gw-b'),
      JSON.stringify({ kind: 'too-many-sockets', connectionId: 'gw-b:1', max: 3 }),
    );
    await reader.publish(
      channel,
      JSON.stringify({ kind: 'too-many-sockets', connectionId: 'gw-a:6', max: 3 }),
    );
    await waitFor(() => evicted.length === 2, 3000, 'the second eviction');
    expect(evicted.map(([id]) => id)).toEqual(['gw-a:5', 'gw-a:6']);
  });

  it('close() quits its connection, and a second close() does not throw', async () => {
    const { sockets, client } = rig();
    await client.ping();
    await sockets.close();
    await waitFor(() => client.status === 'end', 3000, 'the connection closed');
    await expect(sockets.close()).resolves.toBeUndefined();
  });
});
