import { randomUUID } from 'node:crypto';
import { createRedis, type Redis } from '@dominoes/platform';
import { redisNames, shardOf } from '@dominoes/protocol';
import { TableWatchers } from '../src/spectators/table-watchers';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SHARDS = 16;
const quiet = { warn: () => undefined, info: () => undefined };

/** Two table ids of two different shards. */
const [TABLE_A, TABLE_B] = (() => {
  const a = 'WATCHAAAAAAA';
  for (let i = 0; ; i++) {
    const b = `WATCHB${String(i).padStart(6, '0')}`;
    if (shardOf(b, SHARDS) !== shardOf(a, SHARDS)) return [a, b] as const;
  }
})();

/**
 * The watcher registry of the table-service on real Redis (decision 0018), from the mutation run's
 * survivors: the count the players and spectators see is of players, not sockets, and follows a
 * socket that moves; the registry in Redis is what the shard's next owner reads back.
 */
describe('TableWatchers: who watches, counted by player, kept per shard in Redis', () => {
  let redis: Redis;
  let names: ReturnType<typeof redisNames>;
  beforeAll(() => {
    redis = createRedis(REDIS_URL, 'table-watchers-test', {}, quiet);
  });
  beforeEach(() => {
    names = redisNames(`watchers-${randomUUID()}`, SHARDS);
  });
  afterEach(async () => {
    await redis.del(...Array.from({ length: SHARDS }, (_, shard) => names.shardWatchers(shard)));
  });
  afterAll(async () => {
    await redis.quit();
  });
  const stored = (tableId: string) => redis.hgetall(names.shardWatchers(shardOf(tableId, SHARDS)));

  it('a player with two sockets counts once; the count goes down only when their last socket leaves', async () => {
    const watchers = new TableWatchers(redis, names, SHARDS);
    expect(await watchers.add('s1', { tableId: TABLE_A, playerId: 'p1' })).toEqual({
      ok: true,
      changed: true,
      left: null,
    });
    await watchers.add('s2', { tableId: TABLE_A, playerId: 'p1' });
    await watchers.add('s3', { tableId: TABLE_A, playerId: 'p2' });
    expect(watchers.count(TABLE_A)).toBe(2);
    expect(await watchers.remove('s1')).toBe(TABLE_A);
    expect(watchers.count(TABLE_A)).toBe(2);
    expect(await watchers.remove('s2')).toBe(TABLE_A);
    expect(watchers.count(TABLE_A)).toBe(1);
    expect(Object.keys(await stored(TABLE_A))).toEqual(['s3']);
    // A socket that watches nothing: nothing to remove, nothing else changes.
    expect(await watchers.remove('s-none')).toBeNull();
    expect(watchers.count(TABLE_A)).toBe(1);
  });

  it('the same socket watching the same table again changes nothing; a socket moving to another table leaves the first (its count down, its hash entry gone)', async () => {
    const watchers = new TableWatchers(redis, names, SHARDS);
    await watchers.add('s1', { tableId: TABLE_A, playerId: 'p1' });
    expect(await watchers.add('s1', { tableId: TABLE_A, playerId: 'p1' })).toEqual({
      ok: true,
      changed: false,
      left: null,
    });
    expect(watchers.count(TABLE_A)).toBe(1);
    expect(await watchers.add('s1', { tableId: TABLE_B, playerId: 'p1' })).toEqual({
      ok: true,
      changed: true,
      left: TABLE_A,
    });
    expect(watchers.count(TABLE_A)).toBe(0);
    expect(watchers.count(TABLE_B)).toBe(1);
    expect(watchers.watching('s1')).toEqual({ tableId: TABLE_B, playerId: 'p1' });
    expect(await stored(TABLE_A)).toEqual({});
    expect(await stored(TABLE_B)).toEqual({ s1: JSON.stringify({ tableId: TABLE_B, playerId: 'p1' }) });
  });

  it('the next owner of a shard reads back that shard’s watchers only (not a malformed entry, not one of another shard’s table); losing a shard forgets only its watchers', async () => {
    const first = new TableWatchers(redis, names, SHARDS);
    await first.add('s1', { tableId: TABLE_A, playerId: 'p1' });
    await first.add('s2', { tableId: TABLE_A, playerId: 'p1' });
    await first.add('s3', { tableId: TABLE_B, playerId: 'p2' });
    const shardA = shardOf(TABLE_A, SHARDS);
    await redis.hset(names.shardWatchers(shardA), 'bad-json', '{', 'bad-shape', '{"tableId":1}');
    await redis.hset(
      names.shardWatchers(shardA),
      'elsewhere',
      JSON.stringify({ tableId: TABLE_B, playerId: 'p9' }),
    );

    const next = new TableWatchers(redis, names, SHARDS);
    await next.shardAcquired(shardA);
    expect(next.count(TABLE_A)).toBe(1);
    expect(next.count(TABLE_B)).toBe(0);
    expect([...next.connections()].map(([id]) => id).sort()).toEqual(['s1', 's2']);
    // Read twice (the shard taken again): the sockets are not counted twice.
    await next.shardAcquired(shardA);
    expect(await next.remove('s1')).toBe(TABLE_A);
    expect(next.count(TABLE_A)).toBe(1);

    first.shardLost(shardA);
    expect(first.count(TABLE_A)).toBe(0);
    expect(first.count(TABLE_B)).toBe(1);
    expect([...first.connections()].map(([id]) => id)).toEqual(['s3']);
  });
});
