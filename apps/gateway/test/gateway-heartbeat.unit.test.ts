import { createRedis, type Redis } from '@dominoes/platform';
import { recordingLogger, type LoggedLine } from '../../../libs/platform/src/test-logger';
import { GatewayHeartbeat } from '../src/ws/gateway-heartbeat';
import { eventually, sleep, uniquePrefix, waitFor } from './support';
import { RedisConnections } from './unit-fakes';

/**
 * GatewayHeartbeat on its own, on real Redis: the key's value and TTL, the beat every interval, one
 * beat at a time, the failures logged once, and stop() (P17: what the table-service goes by).
 */
const redis = new RedisConnections();
const prefix = uniquePrefix('heartbeat_unit');
let reader: Redis;
const heartbeats: GatewayHeartbeat[] = [];
const quiet = { warn: () => undefined, info: () => undefined };

beforeAll(() => {
  reader = redis.open('heartbeat-unit-reader');
});
afterAll(async () => {
  await Promise.all(heartbeats.map((heartbeat) => heartbeat.stop()));
  const keys = await reader.keys(`${prefix}:*`);
  if (keys.length > 0) await reader.del(...keys);
  await redis.closeAll();
});

let n = 0;
/** A heartbeat on a connection of its own that fails at once while cut (no offline queue). */
function heartbeat(intervalMs = 60_000, ttlMs = 120_000, epoch = 1234) {
  const client = createRedis(
    process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    'heartbeat-unit',
    { enableOfflineQueue: false, maxRetriesPerRequest: 1 },
    quiet,
  );
  const { logger, lines } = recordingLogger();
  const key = `${prefix}:alive:${++n}`;
  const beat = new GatewayHeartbeat({ redis: client, key, epoch, intervalMs, ttlMs, logger });
  heartbeats.push(beat);
  return { beat, client, key, lines };
}

const said = (lines: LoggedLine[], msg: string) => lines.filter((l) => l.msg === msg);
const ready = (client: Redis) => eventually(async () => client.status === 'ready', 3000, 'the connection');
/** Cuts the connection (its commands then fail at once) until `connect()`. */
async function cut(client: Redis): Promise<void> {
  client.disconnect();
  await waitFor(() => client.status === 'end', 3000, 'the connection cut');
}

describe('GatewayHeartbeat on real Redis (P17)', () => {
  it('start() sets the key to the epoch with its TTL, then sets it again every interval', async () => {
    const { beat, client, key } = heartbeat(30, 5_000, 4242);
    await ready(client);
    await beat.start();
    expect(await reader.get(key)).toBe('4242');
    const ttl = await reader.pttl(key);
    expect(ttl).toBeGreaterThan(4_000);
    expect(ttl).toBeLessThanOrEqual(5_000);
    // Gone (as if it expired): the next beat writes it back.
    await reader.del(key);
    await eventually(async () => (await reader.get(key)) === '4242', 3000, 'the next beat');
    await beat.stop();
  });

  it('a beat under way is not sent twice: beat() answers the same promise until it settles', async () => {
    const { beat, client } = heartbeat();
    await ready(client);
    const first = beat.beat();
    expect(beat.beat()).toBe(first);
    await first;
    expect(beat.beat()).not.toBe(first);
    await beat.stop();
  });

  it('a beat that cannot be written is logged once, however many fail, and once when it is written again', async () => {
    const { beat, client, key, lines } = heartbeat();
    await ready(client);
    await cut(client);
    await expect(beat.beat()).resolves.toBeUndefined();
    await beat.beat();
    const failed = said(lines, 'gateway heartbeat could not be written; retrying every interval');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ level: 40, key, err: expect.stringMatching(/\w/) });
    expect(String(failed[0]!['err'])).not.toMatch(/^Error/);
    expect(said(lines, 'gateway heartbeat written again')).toHaveLength(0);

    await client.connect();
    await beat.beat();
    await beat.beat();
    const back = said(lines, 'gateway heartbeat written again');
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({ level: 30, key });
    expect(await reader.get(key)).toBe('1234');
    // Failing again is told again.
    await cut(client);
    await beat.beat();
    expect(said(lines, 'gateway heartbeat could not be written; retrying every interval')).toHaveLength(2);
    await client.connect();
    await beat.stop();
  });

  it('stop() deletes the key, closes the connection, and no beat follows (nor a second stop)', async () => {
    const { beat, client, key, lines } = heartbeat(20);
    await ready(client);
    await beat.start();
    expect(await reader.exists(key)).toBe(1);
    await beat.stop();
    expect(await reader.exists(key)).toBe(0);
    await waitFor(() => client.status === 'end', 3000, 'the connection closed');
    await beat.beat();
    await beat.stop();
    // Several intervals: a beat or a delete on the closed connection would log its failure.
    await sleep(100);
    expect(await reader.exists(key)).toBe(0);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  });

  it('stop() during start(): no interval is left beating', async () => {
    const { beat, client, key, lines } = heartbeat(20);
    await ready(client);
    const started = beat.start();
    const stopped = beat.stop();
    await Promise.all([started, stopped]);
    await sleep(100);
    expect(await reader.exists(key)).toBe(0);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  });

  it('a key that cannot be deleted at stop() is logged (it expires by itself)', async () => {
    const { beat, client, key, lines } = heartbeat();
    await ready(client);
    await beat.start();
    // Not a string any more: the delete's GET fails (WRONGTYPE).
    await reader.del(key);
    await reader.hset(key, 'epoch', '1234');
    await beat.stop();
    const warned = said(lines, 'gateway heartbeat could not be deleted; it expires by itself');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: 40, key, err: expect.stringMatching(/\w/) });
    expect(String(warned[0]!['err'])).not.toMatch(/^Error/);
    expect(String(warned[0]!['err'])).toMatch(/WRONGTYPE/);
    expect(await reader.hget(key, 'epoch')).toBe('1234');
    await waitFor(() => client.status === 'end', 3000, 'the connection closed');
  });
});
