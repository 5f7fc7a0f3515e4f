import fc from 'fast-check';
import {
  ConfigError,
  evenDatabaseOf,
  formatShardMap,
  parseShardMap,
  readBaseConfig,
  shardsOfDatabase,
} from '../src';

describe('the shard map: which Postgres database holds each shard (decision 0027)', () => {
  it('unset, every shard is in the one database, and N databases split the shards in even ranges', () => {
    expect(parseShardMap(undefined, 4, 1)).toEqual([0, 0, 0, 0]);
    expect(parseShardMap('', 16, 2)).toEqual([...Array(8).fill(0), ...Array(8).fill(1)]);
    expect(parseShardMap(undefined, 5, 2)).toEqual([0, 0, 0, 1, 1]);
  });

  it('the even split names every database once in order, for any shard and database count', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1024 }), fc.integer({ min: 1, max: 64 }), (shards, databases) => {
        fc.pre(databases <= shards);
        const map = parseShardMap(undefined, shards, databases);
        expect(map).toHaveLength(shards);
        expect(new Set(map).size).toBe(databases);
        map.forEach((d, s) => {
          expect(d).toBe(evenDatabaseOf(s, shards, databases));
          if (s > 0) expect(d - map[s - 1]!).toBeGreaterThanOrEqual(0);
        });
      }),
    );
  });

  it('reads ranges and single shards, and formatShardMap writes back what it reads', () => {
    const map = parseShardMap('0-3:0, 4:1, 5-7:0', 8, 2);
    expect(map).toEqual([0, 0, 0, 0, 1, 0, 0, 0]);
    expect(formatShardMap(map)).toBe('0-3:0,4:1,5-7:0');
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 64 }), (m) => {
        expect(parseShardMap(formatShardMap(m), m.length, 4)).toEqual(m);
      }),
    );
    expect(shardsOfDatabase({ databaseUrls: ['a', 'b'], databaseOfShard: map }, 1)).toEqual([4]);
  });

  it.each([
    ['0-7:0,8-14:1', 16, 2, 'shard 15 is in no database'],
    ['0-8:0,8-15:1', 16, 2, 'shard 8 is named twice'],
    ['0-15:2', 16, 2, 'there are 2 databases (0-1)'],
    ['0-16:0', 16, 2, 'there are 16 shards (0-15)'],
    ['7-3:0', 16, 2, '7 is after 3'],
    ['a-b:0', 16, 2, 'is not from-to:database'],
    ['0-15', 16, 2, 'is not from-to:database'],
  ])('refuses %s with a message that says what is wrong', (spec, shards, databases, message) => {
    expect(() => parseShardMap(spec, shards, databases)).toThrow(message);
  });

  it('the config: DATABASE_URLS replaces DATABASE_URL, the first is the home database; a bad map names the variable', () => {
    const one = readBaseConfig({ DATABASE_URL: 'postgresql://h/one', TABLE_SHARDS: '4' });
    expect(one.databaseUrl).toBe('postgresql://h/one');
    expect(one.shardMap).toEqual({ databaseUrls: ['postgresql://h/one'], databaseOfShard: [0, 0, 0, 0] });
    const two = readBaseConfig({
      DATABASE_URL: 'postgresql://h/ignored',
      DATABASE_URLS: 'postgresql://h/a,postgresql://h/b',
      TABLE_SHARDS: '4',
      DATABASE_SHARD_MAP: '0:1,1-3:0',
    });
    expect(two.databaseUrl).toBe('postgresql://h/a');
    expect(two.shardMap.databaseOfShard).toEqual([1, 0, 0, 0]);
    expect(() =>
      readBaseConfig({ DATABASE_URLS: 'postgresql://h/a', TABLE_SHARDS: '4', DATABASE_SHARD_MAP: '0-3:1' }),
    ).toThrow(new ConfigError('DATABASE_SHARD_MAP "0-3:1": there are 1 databases (0-0).'));
    expect(() => readBaseConfig({ DATABASE_URLS: 'mysql://h/a' })).toThrow(/DATABASE_URLS must be/);
  });
});
