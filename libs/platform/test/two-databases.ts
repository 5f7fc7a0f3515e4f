import { DEFAULT_TABLE_SHARDS, shardOf, TABLE_CODE_ALPHABET, TABLE_CODE_LENGTH } from '@dominoes/protocol';
import { createPrisma, type PrismaClient, type SessionOptions } from '../src/db';
import { ShardDatabases } from '../src/shard-databases';
import { parseShardMap, type ShardMap } from '../src/shard-map';
import { createTestStores, type TestStores } from '../src/test-stores';

/**
 * Postgres split by shard for a suite (decision 0027): two fresh migrated databases on the test
 * server (createTestStores' way, one each), and the even shard map over them (shards 0-7 in the
 * first, the home database; 8-15 in the second). Redis is the first's.
 */
export interface TwoDatabases {
  readonly stores: readonly [TestStores, TestStores];
  readonly map: ShardMap;
  /** DATABASE_URLS as a service reads it. */
  readonly databaseUrls: string;
  /** A ShardDatabases over both (closed by dispose). */
  open(poolSize?: number, session?: SessionOptions): ShardDatabases;
  /** The database of table `tableId` by the map (what ShardDatabases.indexOfTable says). */
  indexOfTable(tableId: string): number;
  /** A plain client of database `index` alone: to see which rows are where. */
  client(index: number): PrismaClient;
  dispose(): Promise<void>;
}

export async function createTwoDatabases(
  label: string,
  shards = DEFAULT_TABLE_SHARDS,
): Promise<TwoDatabases> {
  const stores = [await createTestStores(`${label}_db0`), await createTestStores(`${label}_db1`)] as const;
  const databaseUrls = stores.map((s) => s.databaseUrl);
  const map: ShardMap = { databaseUrls, databaseOfShard: parseShardMap(undefined, shards, 2) };
  const opened: { disconnect(): Promise<void> }[] = [];
  const clients = new Map<number, PrismaClient>();
  return {
    stores,
    map,
    databaseUrls: databaseUrls.join(','),
    open(poolSize = 4, session = {}) {
      const databases = new ShardDatabases(map, (url) => createPrisma(url, poolSize, session));
      opened.push(databases);
      return databases;
    },
    indexOfTable: (tableId) => map.databaseOfShard[shardOf(tableId, shards)]!,
    client(index) {
      let client = clients.get(index);
      if (!client) {
        client = createPrisma(databaseUrls[index]!, 2);
        clients.set(index, client);
      }
      return client;
    },
    async dispose() {
      await Promise.all([
        ...opened.map((d) => d.disconnect()),
        ...[...clients.values()].map((c) => c.$disconnect()),
      ]);
      for (const store of stores) await store.dispose();
    },
  };
}

/**
 * The `n`-th table code (in a fixed order from `seed`) whose shard is in database `database`: the
 * tests' way to put a table where they want it.
 */
export function tableCodeIn(
  databases: Pick<ShardDatabases, 'indexOfTable'>,
  database: number,
  seed: string,
  n = 0,
): string {
  let found = 0;
  for (let i = 0; i < 1_000_000; i++) {
    const code = codeOf(`${seed}${i}`);
    if (databases.indexOfTable(code) !== database) continue;
    if (found++ === n) return code;
  }
  throw new Error(`no code of database ${database} from seed ${seed}`);
}

/** A valid table code made from `text` (the first TABLE_CODE_LENGTH characters of its hash). */
function codeOf(text: string): string {
  let h = 0x811c9dc5;
  let code = '';
  for (let i = 0; code.length < TABLE_CODE_LENGTH; i++) {
    h ^= text.charCodeAt(i % text.length) + i;
    h = Math.imul(h, 0x01000193) >>> 0;
    code += TABLE_CODE_ALPHABET[h % TABLE_CODE_ALPHABET.length];
  }
  return code;
}
