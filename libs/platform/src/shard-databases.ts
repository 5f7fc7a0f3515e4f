import { DEFAULT_TABLE_SHARDS, shardOf } from '@dominoes/protocol';
import type { PrismaClient } from './db';
import type { ShardMap } from './shard-map';

/**
 * One Prisma client per database of the shard map (decision 0027), and the way to the one that holds
 * a table: a table's shard (shardOf its id) names its database. With one database (the default)
 * every table, the players and the locks are in `home`, as before the split.
 */
export class ShardDatabases {
  /** Database i of the map's DATABASE_URLS order. */
  readonly all: readonly PrismaClient[];

  constructor(
    readonly map: ShardMap,
    open: (databaseUrl: string, index: number) => PrismaClient,
  ) {
    this.all = map.databaseUrls.map((url, index) => open(url, index));
  }

  /** One database holding every one of `shards` shards: a client already open (the tests' and tools' one pool). */
  static single(prisma: PrismaClient, shards = DEFAULT_TABLE_SHARDS): ShardDatabases {
    return new ShardDatabases(
      { databaseUrls: ['(an open client)'], databaseOfShard: new Array<number>(shards).fill(0) },
      () => prisma,
    );
  }

  /** Database 0: players, the host's and quick play's advisory locks, and whatever is not a table's. */
  get home(): PrismaClient {
    return this.all[0]!;
  }

  get shards(): number {
    return this.map.databaseOfShard.length;
  }

  /** The index of the database holding shard `shard`. */
  indexOfShard(shard: number): number {
    const index = this.map.databaseOfShard[shard];
    if (index === undefined) throw new RangeError(`no shard ${shard} of ${this.shards}`);
    return index;
  }

  ofShard(shard: number): PrismaClient {
    return this.all[this.indexOfShard(shard)]!;
  }

  /** The index of the database holding table `tableId`. */
  indexOfTable(tableId: string): number {
    return this.indexOfShard(shardOf(tableId, this.shards));
  }

  ofTable(tableId: string): PrismaClient {
    return this.all[this.indexOfTable(tableId)]!;
  }

  /** Runs `query` on every database at once; results in database order. */
  each<T>(query: (prisma: PrismaClient, index: number) => Promise<T>): Promise<T[]> {
    return Promise.all(this.all.map((prisma, index) => query(prisma, index)));
  }

  async disconnect(): Promise<void> {
    await Promise.all(this.all.map((prisma) => prisma.$disconnect()));
  }
}
