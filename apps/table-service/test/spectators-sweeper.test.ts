import { randomUUID } from 'node:crypto';
import { createLogger, createRedis, type Redis } from '@dominoes/platform';
import { redisNames, type RedisNames } from '@dominoes/protocol';
import { recordingLogger, type LoggedLine } from '../../../libs/platform/src/test-logger';
import { StaleWatcherSweeper } from '../src/spectators/stale-watchers';
import { TableSpectators } from '../src/spectators/table-spectators';
import { TableWatchers } from '../src/spectators/table-watchers';
import { RedisSeatPublisher } from '../src/table/seat-publisher';
import { sleep, until } from './support/until';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SHARDS = 4;
const TABLE = 'SWEEPT1';

/**
 * The stale-watcher sweep (stale-watchers.ts) on real Redis, by a test clock: the grace counted from
 * the first sweep that finds a gateway's heartbeat missing, started again when it comes back or when
 * the gateway has no watchers left; what a heartbeat that is no number means; the started sweeper's
 * passes, a failing pass, and what it logs. The watchers are in the registry only (a table the
 * spectators cannot load: an unwatch then sends no count).
 */
describe('stale-watcher sweep: the grace by the sweep’s clock, its passes and its log', () => {
  let redis: Redis;
  let names: RedisNames;
  let spectators: TableSpectators;
  beforeAll(() => {
    redis = createRedis(REDIS_URL, 'spectators-sweeper-test');
  });
  beforeEach(() => {
    names = redisNames(`sweeper-${randomUUID()}`, SHARDS);
    spectators = new TableSpectators(
      new TableWatchers(redis, names, SHARDS),
      (channel, message) => redis.publish(channel, message),
      names,
      new RedisSeatPublisher(redis, names),
      createLogger('test', 'silent'),
    );
    spectators.attach({ load: () => Promise.resolve(null) });
  });
  afterEach(async () => {
    const keys = await redis.keys(`${names.prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  });
  afterAll(async () => {
    await redis.quit();
  });

  const watchers = () => spectators.watchers(TABLE);
  const add = (connectionId: string, playerId = connectionId) =>
    spectators.registry.add(connectionId, { tableId: TABLE, playerId });
  /** A sweeper on the test's clock (`clock.at`), its lines kept. */
  const sweeperAt = (graceMs: number, intervalMs = 60_000, target: Pick<Redis, 'get'> = redis) => {
    const clock = { at: 0, now: () => clock.at };
    const { logger, lines } = recordingLogger();
    const sweeper = new StaleWatcherSweeper({
      spectators,
      redis: target,
      names,
      clock,
      logger,
      graceMs,
      intervalMs,
    });
    const sweepAt = (at: number) => ((clock.at = at), sweeper.sweep());
    return { sweeper, sweepAt, lines };
  };
  const droppedLines = (lines: LoggedLine[]) =>
    lines.filter((l) => l.msg === 'watchers of gone gateways dropped');

  it('drops the watchers of a gateway missing for exactly the grace, not a moment before, and says how many it dropped (a sweep that drops none says nothing)', async () => {
    await add('gw-x:1');
    await add('gw-x:2');
    const { sweepAt, lines } = sweeperAt(100);
    expect(await sweepAt(1_000)).toBe(0);
    expect(await sweepAt(1_099)).toBe(0);
    expect(watchers()).toBe(2);
    expect(droppedLines(lines)).toEqual([]);
    expect(await sweepAt(1_100)).toBe(2);
    expect(watchers()).toBe(0);
    expect(droppedLines(lines)).toEqual([expect.objectContaining({ level: 30, dropped: 2 })]);
  });

  it('a heartbeat that comes back and goes again gives the whole grace again; so does a gateway that had no watchers for a sweep', async () => {
    await add('gw-y:1');
    const { sweepAt } = sweeperAt(100);
    expect(await sweepAt(0)).toBe(0);
    await redis.set(names.gatewayAlive('gw-y'), '1');
    expect(await sweepAt(50)).toBe(0);
    await redis.del(names.gatewayAlive('gw-y'));
    expect(await sweepAt(120)).toBe(0); // missing again since 120, not since 0
    expect(await sweepAt(219)).toBe(0);
    expect(await sweepAt(220)).toBe(1);

    await add('gw-z:1');
    expect(await sweepAt(300)).toBe(0);
    await spectators.registry.remove('gw-z:1');
    expect(await sweepAt(310)).toBe(0); // gw-z has no watchers: forgotten
    await add('gw-z:2');
    expect(await sweepAt(500)).toBe(0); // missing since 500, not since 300
    expect(watchers()).toBe(1);
    expect(await sweepAt(600)).toBe(1);
  });

  it('a heartbeat that is not a finite number is no boot epoch: the sockets stay, whatever their number', async () => {
    await redis.set(names.gatewayAlive('gw-inf'), 'Infinity');
    await redis.set(names.gatewayAlive('gw-nan'), 'not-a-number');
    await add('gw-inf:3');
    await add('gw-nan:3');
    const { sweepAt } = sweeperAt(0);
    expect(await sweepAt(1_000)).toBe(0);
    expect(watchers()).toBe(2);
  });

  it('the started sweeper sweeps again after each pass, a failing pass (Redis connection closed) logged and the next one still run; stopped, it cannot be started again', async () => {
    const closed = createRedis(REDIS_URL, 'spectators-sweeper-closed');
    await closed.quit();
    await add('gw-gone:1');
    const { sweeper, lines } = sweeperAt(0, 20, closed);
    const failures = () => lines.filter((l) => l.msg === 'stale-watcher sweep failed');
    try {
      sweeper.start();
      await until('three failed passes', () => failures().length >= 3);
      expect(failures()[0]).toEqual(
        expect.objectContaining({
          level: 40,
          err: expect.objectContaining({ message: 'Connection is closed.' }),
        }),
      );
    } finally {
      sweeper.stop();
    }
    const seen = failures().length;
    sweeper.start();
    await sleep(100);
    expect(failures()).toHaveLength(seen);
    expect(watchers()).toBe(1);
  });

  it('started twice, the sweeper still makes one pass per interval', async () => {
    let passes = 0;
    const counting = {
      get: ((key: string) => {
        passes++;
        return redis.get(key);
      }) as Redis['get'],
    };
    await redis.set(names.gatewayAlive('gw-live'), '1');
    await add('gw-live:1');
    const { sweeper } = sweeperAt(0, 500, counting);
    try {
      sweeper.start();
      sweeper.start();
      await until('a pass', () => passes > 0, 5_000);
      await sleep(20);
      expect(passes).toBe(1);
    } finally {
      sweeper.stop();
    }
  });
});
